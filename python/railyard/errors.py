"""railyard's exception: every bad input raises :class:`Error`.

The C++ library reports a bad input as a status naming the field and the value
(``hosts=130: out of range (the cluster has hosts 0..127)``); the bindings raise
it as ``railyard.Error`` with those parts as attributes, so a caller never has to
parse the message::

    try:
        cluster.order("tp=8,dp=4", hosts=[0, 1, 2, 130])
    except railyard.Error as e:
        e.field   # "hosts"
        e.value   # "130"
        e.code    # "invalid_argument"
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

__all__ = ["Error"]


class Error(ValueError):
    """A railyard input was rejected.

    Attributes:
        field: the input at fault (``"job"``, ``"hosts"``, ``"cluster"``,
            ``"policy"``, ...), or None when the library named none.
        value: the offending value as text, or None.
        code: the status code in snake case: ``invalid_argument``,
            ``not_found``, ``already_exists``, ``resource_exhausted`` (e.g. the
            allocator has too few free hosts), ``failed_precondition``,
            ``unavailable`` (every path is down), ``out_of_range``.
    """

    def __init__(self, message: str, *, field: Optional[str] = None,
                 value: Optional[str] = None, code: str = "invalid_argument") -> None:
        super().__init__(message)
        self.field = field
        self.value = value
        self.code = code

    # Picklable across processes (multiprocessing, torch).
    def __reduce__(self) -> Tuple[Any, Tuple[str, Optional[str], Optional[str], str]]:
        return (_rebuild, (str(self), self.field, self.value, self.code))


def _rebuild(message: str, field: Optional[str], value: Optional[str], code: str) -> Error:
    return Error(message, field=field, value=value, code=code)
