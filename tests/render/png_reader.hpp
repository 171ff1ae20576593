// tests/render/png_reader.hpp — a small PNG decoder for rendering tests: enough
// of PNG (RFC 2083) and zlib/DEFLATE (RFC 1950/1951) to read what rsvg-convert
// writes, so a test can look at a rendered picture's pixels without a zlib or
// libpng dependency.
//
//   railyard::test::Png png = railyard::test::read_png(bytes);  // throws PngError
//   png.width, png.height; png.at(x, y) -> Rgba{r, g, b, a}
//
// Supported: 8-bit RGB (colour type 2) and RGBA (6), not interlaced, every
// filter type; stored, fixed- and dynamic-Huffman DEFLATE blocks (the Huffman
// decoding follows zlib's contrib/puff). CRCs and the Adler-32 are not checked:
// the file comes from a local program, and a corrupt one fails to decode or
// decodes to the wrong size, which the reader reports.
#pragma once

#include <array>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace railyard::test {

struct PngError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Rgba {
  uint8_t r = 0, g = 0, b = 0, a = 0;
  [[nodiscard]] uint32_t rgb() const { return uint32_t{r} << 16 | uint32_t{g} << 8 | b; }
  friend bool operator==(const Rgba&, const Rgba&) = default;
};

struct Png {
  int32_t width = 0, height = 0;
  std::vector<Rgba> pixels;  // row-major
  [[nodiscard]] const Rgba& at(int32_t x, int32_t y) const {
    return pixels[static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)];
  }
};

namespace png_detail {

class BitReader {
 public:
  explicit BitReader(std::string_view in) : in_(in) {}
  uint32_t bits(int need) {
    uint64_t val = buf_;
    while (count_ < need) {
      if (pos_ >= in_.size()) throw PngError("inflate: input ends inside a block");
      val |= uint64_t{static_cast<uint8_t>(in_[pos_++])} << count_;
      count_ += 8;
    }
    buf_ = val >> need;
    count_ -= need;
    return static_cast<uint32_t>(val & ((uint64_t{1} << need) - 1));
  }
  void align() { buf_ = 0, count_ = 0; }
  uint8_t byte() {
    if (pos_ >= in_.size()) throw PngError("inflate: input ends inside a stored block");
    return static_cast<uint8_t>(in_[pos_++]);
  }

 private:
  std::string_view in_;
  size_t pos_ = 0;
  uint64_t buf_ = 0;
  int count_ = 0;
};

constexpr int kMaxBits = 15;

// Canonical Huffman code: codes per length and symbols in code order.
struct Huffman {
  std::array<uint16_t, kMaxBits + 1> count{};
  std::vector<uint16_t> symbol;
};

inline Huffman build(const uint8_t* lengths, int n) {
  Huffman h;
  h.symbol.assign(static_cast<size_t>(n), 0);
  for (int s = 0; s < n; ++s) ++h.count[lengths[s]];
  std::array<uint16_t, kMaxBits + 2> offs{};
  for (int len = 1; len < kMaxBits; ++len) offs[len + 1] = offs[len] + h.count[len];
  for (int s = 0; s < n; ++s)
    if (lengths[s] != 0) h.symbol[offs[lengths[s]]++] = static_cast<uint16_t>(s);
  return h;
}

inline int decode(BitReader& in, const Huffman& h) {
  int code = 0, first = 0, index = 0;
  for (int len = 1; len <= kMaxBits; ++len) {
    code |= static_cast<int>(in.bits(1));
    const int count = h.count[len];
    if (code - count < first) return h.symbol[static_cast<size_t>(index + (code - first))];
    index += count;
    first += count;
    first <<= 1;
    code <<= 1;
  }
  throw PngError("inflate: invalid Huffman code");
}

inline void codes(BitReader& in, std::string& out, const Huffman& lit, const Huffman& dist) {
  static constexpr uint16_t kLens[29] = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                         15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                         67, 83, 99, 115, 131, 163, 195, 227, 258};
  static constexpr uint8_t kLext[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                        2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
  static constexpr uint16_t kDists[30] = {
      1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
      193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
  static constexpr uint8_t kDext[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                        6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
  for (;;) {
    int sym = decode(in, lit);
    if (sym < 256) {
      out.push_back(static_cast<char>(sym));
      continue;
    }
    if (sym == 256) return;
    sym -= 257;
    if (sym >= 29) throw PngError("inflate: invalid length symbol");
    const size_t len = kLens[sym] + in.bits(kLext[sym]);
    const int dsym = decode(in, dist);
    if (dsym >= 30) throw PngError("inflate: invalid distance symbol");
    const size_t d = kDists[dsym] + in.bits(kDext[dsym]);
    if (d > out.size()) throw PngError("inflate: distance too far back");
    for (size_t k = 0; k < len; ++k) out.push_back(out[out.size() - d]);
  }
}

// The raw DEFLATE stream `in` inflated.
inline std::string inflate(std::string_view in) {
  BitReader r(in);
  std::string out;
  for (bool last = false; !last;) {
    last = r.bits(1) != 0;
    const uint32_t type = r.bits(2);
    if (type == 0) {
      r.align();
      const uint32_t len = r.byte() | uint32_t{r.byte()} << 8;
      const uint32_t nlen = r.byte() | uint32_t{r.byte()} << 8;
      if ((len ^ 0xffffu) != nlen) throw PngError("inflate: stored block length check failed");
      for (uint32_t k = 0; k < len; ++k) out.push_back(static_cast<char>(r.byte()));
    } else if (type == 1) {
      uint8_t lengths[288 + 30];
      for (int s = 0; s < 288; ++s) lengths[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
      for (int s = 0; s < 30; ++s) lengths[288 + s] = 5;
      codes(r, out, build(lengths, 288), build(lengths + 288, 30));
    } else if (type == 2) {
      const int nlen = static_cast<int>(r.bits(5)) + 257;
      const int ndist = static_cast<int>(r.bits(5)) + 1;
      const int ncode = static_cast<int>(r.bits(4)) + 4;
      static constexpr uint8_t kOrder[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                             11, 4,  12, 3, 13, 2, 14, 1, 15};
      uint8_t lengths[320] = {};
      for (int k = 0; k < ncode; ++k) lengths[kOrder[k]] = static_cast<uint8_t>(r.bits(3));
      const Huffman lencode = build(lengths, 19);
      for (int k = 0; k < nlen + ndist;) {
        const int sym = decode(r, lencode);
        if (sym < 16) {
          lengths[k++] = static_cast<uint8_t>(sym);
          continue;
        }
        uint8_t value = 0;
        int repeat = 0;
        if (sym == 16) {
          if (k == 0) throw PngError("inflate: repeat with no previous length");
          value = lengths[k - 1];
          repeat = 3 + static_cast<int>(r.bits(2));
        } else if (sym == 17) {
          repeat = 3 + static_cast<int>(r.bits(3));
        } else {
          repeat = 11 + static_cast<int>(r.bits(7));
        }
        if (k + repeat > nlen + ndist) throw PngError("inflate: too many code lengths");
        while (repeat-- > 0) lengths[k++] = value;
      }
      codes(r, out, build(lengths, nlen), build(lengths + nlen, ndist));
    } else {
      throw PngError("inflate: invalid block type 3");
    }
  }
  return out;
}

inline uint32_t be32(std::string_view s, size_t at) {
  return uint32_t{static_cast<uint8_t>(s[at])} << 24 |
         uint32_t{static_cast<uint8_t>(s[at + 1])} << 16 |
         uint32_t{static_cast<uint8_t>(s[at + 2])} << 8 | uint32_t{static_cast<uint8_t>(s[at + 3])};
}

}  // namespace png_detail

// Width and height from the IHDR chunk alone (no inflating).
inline std::pair<int32_t, int32_t> png_size(std::string_view file) {
  if (file.size() < 24 || file.substr(0, 8) != std::string_view("\x89PNG\r\n\x1a\n", 8) ||
      file.substr(12, 4) != "IHDR")
    throw PngError("not a PNG file (no signature and IHDR)");
  return {static_cast<int32_t>(png_detail::be32(file, 16)),
          static_cast<int32_t>(png_detail::be32(file, 20))};
}

// The whole image (see the overview).
inline Png read_png(std::string_view file) {
  using png_detail::be32;
  Png png;
  std::tie(png.width, png.height) = png_size(file);
  const auto depth = static_cast<uint8_t>(file[24]);
  const auto type = static_cast<uint8_t>(file[25]);
  const auto interlace = static_cast<uint8_t>(file[28]);
  if (depth != 8 || (type != 2 && type != 6) || interlace != 0)
    throw PngError("unsupported PNG: bit depth " + std::to_string(depth) + ", colour type " +
                   std::to_string(type) + ", interlace " + std::to_string(interlace));
  std::string idat;
  for (size_t at = 8; at + 12 <= file.size();) {
    const uint32_t len = be32(file, at);
    const std::string_view kind = file.substr(at + 4, 4);
    if (at + 12 + len > file.size()) throw PngError("PNG chunk runs past the end");
    if (kind == "IDAT") idat.append(file.substr(at + 8, len));
    if (kind == "IEND") break;
    at += 12 + len;
  }
  if (idat.size() < 6) throw PngError("PNG without image data");
  const std::string raw = png_detail::inflate(std::string_view(idat).substr(2));  // zlib header
  const size_t bpp = type == 6 ? 4 : 3;
  const size_t stride = bpp * static_cast<size_t>(png.width);
  if (raw.size() != (stride + 1) * static_cast<size_t>(png.height))
    throw PngError("PNG image data: " + std::to_string(raw.size()) + " bytes, expected " +
                   std::to_string((stride + 1) * static_cast<size_t>(png.height)));
  std::vector<uint8_t> prev(stride, 0), cur(stride, 0);
  png.pixels.reserve(static_cast<size_t>(png.width) * static_cast<size_t>(png.height));
  for (int32_t y = 0; y < png.height; ++y) {
    const size_t row = static_cast<size_t>(y) * (stride + 1);
    const auto filter = static_cast<uint8_t>(raw[row]);
    for (size_t i = 0; i < stride; ++i) {
      const int x = static_cast<uint8_t>(raw[row + 1 + i]);
      const int a = i >= bpp ? cur[i - bpp] : 0;
      const int b = prev[i];
      const int c = i >= bpp ? prev[i - bpp] : 0;
      int pred = 0;
      switch (filter) {
        case 0:
          break;
        case 1:
          pred = a;
          break;
        case 2:
          pred = b;
          break;
        case 3:
          pred = (a + b) / 2;
          break;
        case 4: {
          const int p = a + b - c;
          const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
          pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default:
          throw PngError("PNG row filter " + std::to_string(filter));
      }
      cur[i] = static_cast<uint8_t>(x + pred);
    }
    for (size_t i = 0; i < stride; i += bpp)
      png.pixels.push_back({cur[i], cur[i + 1], cur[i + 2], bpp == 4 ? cur[i + 3] : uint8_t{255}});
    std::swap(prev, cur);
  }
  return png;
}

}  // namespace railyard::test
