# Node names of a cluster, worked out independently of railyard's NodeNamer
# from `railyard describe --cluster <spec> --json` and a node pattern, by the
# rules in include/railyard/topology/node_names.hpp:
#   * placeholders {host}, {su}, {pod}, {slot} (host within its SU) and
#     {domain} (NVLink domain), optionally {field:0N};
#   * {f:0N} pads to max(N, digits of the largest value of f).
#
#   railyard describe --cluster C --json |
#     awk -v pattern='node{host:04}' -f tests/slurm/node_names.awk   # `<host id> <name>` lines
#
# Used by slurmctld_check.sh and srun_ranks_check.sh. mawk-compatible (Debian's
# default awk).
function die(msg) { print "node names: " msg > "/dev/stderr"; bad = 1; exit 1 }
function digits(n) { return length(sprintf("%d", n)) }
# Top-level keys are indented by two spaces.
/^  "[a-z_]+": / {
  key = $1; gsub(/[":]/, "", key)
  val = $0; sub(/^[^:]*: */, "", val); sub(/,$/, "", val); gsub(/"/, "", val)
  top[key] = val
}
END {
  if (bad) exit 1
  hosts = top["hosts"] + 0; sus = top["sus"] + 0; pods = top["pods"] + 0
  domains = top["nvlink_domains"] + 0
  if (hosts <= 0 || sus <= 0 || pods <= 0 || domains <= 0)
    die("describe --json lacks hosts/sus/pods/nvlink_domains")
  if (pattern == "") die("no pattern (awk -v pattern=...)")
  hosts_per_su = hosts / sus; sus_per_pod = sus / pods; hosts_per_domain = hosts / domains

  np = 0; lit = ""; rest = pattern
  while ((i = index(rest, "{")) > 0) {
    lit = lit substr(rest, 1, i - 1); rest = substr(rest, i + 1)
    j = index(rest, "}"); if (j == 0) die("unbalanced { in " pattern)
    body = substr(rest, 1, j - 1); rest = substr(rest, j + 1)
    np++; plit[np] = lit; lit = ""
    c = index(body, ":")
    pfield[np] = c ? substr(body, 1, c - 1) : body
    pwidth[np] = c ? substr(body, c + 1) + 0 : 0
    if (pfield[np] !~ /^(host|su|pod|slot|domain)$/) die("unknown placeholder " body)
  }
  tail = lit rest
  if (np == 0) die("no placeholder in " pattern)
  for (h = 0; h < hosts; h++) {
    v["host"] = h; v["su"] = int(h / hosts_per_su); v["pod"] = int(v["su"] / sus_per_pod)
    v["slot"] = h % hosts_per_su; v["domain"] = int(h / hosts_per_domain)
    if (h == hosts - 1) for (f in v) vmax[f] = v[f]
    for (f in v) hv[h, f] = v[f]
  }
  vmax["slot"] = hosts_per_su - 1
  for (h = 0; h < hosts; h++) {
    name = ""
    for (p = 1; p <= np; p++) {
      x = hv[h, pfield[p]]
      if (pwidth[p] > 0) {
        w = pwidth[p]; if (digits(vmax[pfield[p]]) > w) w = digits(vmax[pfield[p]])
        x = sprintf("%0" w "d", x)
      }
      name = name plit[p] x
    }
    print h, name tail
  }
}
