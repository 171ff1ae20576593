"""Runs one test module of tests/python with unittest for CTest.

Exit status: 0 when the tests passed, 1 when any failed, 77 (CTest's
SKIP_RETURN_CODE) when every test skipped -- the reasons are printed -- so a test
whose component is missing reports SKIPPED instead of passing silently.

    python3 run_tests.py test_bindings
"""
import sys
import unittest


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: run_tests.py <test module>", file=sys.stderr)
        return 2
    suite = unittest.defaultTestLoader.loadTestsFromName(sys.argv[1])
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    if not result.wasSuccessful():
        return 1
    if result.testsRun > 0 and len(result.skipped) == result.testsRun:
        reasons = sorted({reason for _, reason in result.skipped})
        print("SKIPPED: " + "; ".join(reasons))
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
