"""Frozen value classes that cost nothing to define: ``@record`` (issue 27).

``@dataclass(frozen=True)`` writes six methods per class as source text and compiles them in
every process that imports the class; for the value classes a ``torchrig plan`` loads that
was about a quarter of the process (Workload alone, 73 fields, 4 ms), and importing
``dataclasses`` (it imports ``inspect``) another tenth. A ``@record`` class behaves as that
frozen dataclass does - the same ``__init__`` (positional or keyword, defaults and
``field(default_factory=...)``), ``__repr__``, ``__eq__``, ``__hash__``, assignment raising
``dataclasses.FrozenInstanceError`` - but its methods are the shared ones below, reading the
class's field list, so defining one costs a few microseconds.

``dataclasses.fields``, ``replace``, ``asdict`` and ``is_dataclass`` work on records as on
dataclasses: the first read of ``__dataclass_fields__`` imports ``dataclasses`` and builds the
real Field objects from a dataclass copy of the class. Code on the plan path uses this
module's :func:`replace` and :func:`field_names` instead, which need no ``dataclasses``.
Records support what the project's value classes use: no ClassVar or InitVar fields, no
``__post_init__``, no inheritance between records (each is checked when defined).

``@mutable_record`` is the same for a plain ``@dataclass`` (not frozen): fields may be assigned,
and, as the dataclass's, instances compare by value and are unhashable (``__hash__`` None).
The export's build, catalog and capabilities are such classes (issue 27: an export process
then imports no ``dataclasses`` either).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:
    def dataclass_transform(**_options: Any) -> Callable[[Any], Any]:
        """PEP 681's marker: tells type checkers ``record`` makes dataclass-like classes."""
        return lambda decorator: decorator

T = TypeVar("T")
C = TypeVar("C", bound=type)

_NO_DEFAULT = object()


class _Factory:
    """A field's ``default_factory``, as :func:`field` leaves it in the class body."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def field(*, default_factory: Callable[[], T]) -> T:
    """``dataclasses.field(default_factory=...)`` for a record: each instance gets a new one."""
    return _Factory(default_factory)  # type: ignore[return-value]  # replaced by record()


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def record(cls: C) -> C:
    """Make ``cls`` a frozen value class over its annotated fields (see the module docstring)."""
    return _make(cls, frozen=True)


@dataclass_transform(field_specifiers=(field,))
def mutable_record(cls: C) -> C:
    """Make ``cls`` a value class whose fields may be assigned: ``@dataclass``'s behaviour."""
    return _make(cls, frozen=False)


def _make(cls: C, *, frozen: bool) -> C:
    if any("__record_fields__" in vars(base) for base in cls.__mro__[1:]):
        raise TypeError(f"{cls.__qualname__}: records do not inherit from records")
    if "__post_init__" in vars(cls):
        raise TypeError(f"{cls.__qualname__}: records have no __post_init__")
    fields: list[tuple[str, Any, Callable[[], Any] | None]] = []
    for name, annotation in vars(cls).get("__annotations__", {}).items():
        if str(annotation).split("[")[0].rsplit(".", 1)[-1] in ("ClassVar", "InitVar"):
            raise TypeError(f"{cls.__qualname__}.{name}: records have no {annotation} fields")
        default = vars(cls).get(name, _NO_DEFAULT)
        if isinstance(default, _Factory):
            delattr(cls, name)  # as dataclasses does: the class keeps no shared value
            fields.append((name, _NO_DEFAULT, default.make))
            continue
        if default is not _NO_DEFAULT and type(default).__hash__ is None:
            raise ValueError(f"{cls.__qualname__}.{name}: mutable default "
                             f"{type(default).__name__}; use field(default_factory=...)")
        if default is _NO_DEFAULT and fields and _has_default(fields[-1]):
            raise TypeError(f"{cls.__qualname__}: non-default field {name!r} follows a "
                            "default field")
        fields.append((name, default, None))
    attrs: dict[str, Any] = {
        "__record_fields__": tuple(fields),
        "__record_init__": _InitPlan(fields),
        "__match_args__": tuple(name for name, _, _ in fields),
        "__init__": _init, "__repr__": _repr, "__eq__": _eq,
        "__dataclass_fields__": _DataclassView(), "__dataclass_params__": _DataclassView(),
    }
    if frozen:
        attrs.update({"__hash__": _hash, "__setattr__": _setattr, "__delattr__": _delattr})
    elif "__hash__" in vars(cls) and vars(cls)["__hash__"] is not None:
        raise TypeError(f"{cls.__qualname__} defines __hash__; a record makes its own")
    else:
        cls.__hash__ = None  # type: ignore[assignment]  # as @dataclass's eq=True: unhashable
    for name, value in attrs.items():
        if name in vars(cls):
            raise TypeError(f"{cls.__qualname__} defines {name}; a record makes its own")
        setattr(cls, name, value)
        if name.startswith("__dataclass"):
            value.__set_name__(cls, name)
    return cls


def _has_default(f: tuple[str, Any, Callable[[], Any] | None]) -> bool:
    return f[1] is not _NO_DEFAULT or f[2] is not None


class _InitPlan:
    """What ``__init__`` needs of a record's fields, worked out once when the class is made:
    every field in order with its plain default (a placeholder where it has none, always
    overwritten), the names, the required names and the factories. An instance is then a copy
    of the template updated with the arguments - dict and set operations in C, where a loop over
    the fields was three times a dataclass's ``__init__`` for a 500-line quote's rows."""

    __slots__ = ("factories", "names", "required", "template")

    def __init__(self, fields: list[tuple[str, Any, Callable[[], Any] | None]]) -> None:
        self.template = {name: None if default is _NO_DEFAULT else default
                         for name, default, _ in fields}
        self.names = frozenset(self.template)
        self.required = frozenset(name for name, default, make in fields
                                  if default is _NO_DEFAULT and make is None)
        self.factories = tuple((name, make) for name, _, make in fields if make is not None)


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    cls = type(self)
    if args:
        names = cls.__match_args__
        if len(args) > len(names):
            raise TypeError(f"{cls.__qualname__}.__init__() takes {len(names) + 1} positional "
                            f"arguments but {len(args) + 1} were given")
        for name, value in zip(names, args, strict=False):  # fewer args than fields: defaults
            if name in kwargs:
                raise TypeError(f"{cls.__qualname__}.__init__() got multiple values for "
                                f"argument {name!r}")
            kwargs[name] = value
    plan: _InitPlan = cls.__record_init__
    given = kwargs.keys()
    if not plan.required <= given:
        missing = [name for name in cls.__match_args__
                   if name in plan.required and name not in kwargs]
        raise TypeError(f"{cls.__qualname__}.__init__() missing {len(missing)} required "
                        f"argument(s): {', '.join(map(repr, missing))}")
    if not given <= plan.names:
        unexpected = next(name for name in kwargs if name not in plan.names)
        raise TypeError(f"{cls.__qualname__}.__init__() got an unexpected keyword argument "
                        f"{unexpected!r}")
    values = plan.template.copy()  # field order, as the dataclass's __init__ assigns them
    values.update(kwargs)
    for name, make in plan.factories:
        if name not in kwargs:
            values[name] = make()
    self.__dict__.update(values)  # the instance dict, as the frozen dataclass's object.__setattr__


def _values(self: Any) -> tuple[Any, ...]:
    return tuple([getattr(self, name) for name, _, _ in type(self).__record_fields__])


def _repr(self: Any) -> str:
    inner = ", ".join(f"{name}={getattr(self, name)!r}"
                      for name, _, _ in type(self).__record_fields__)
    return f"{type(self).__qualname__}({inner})"


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        return _values(self) == _values(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(_values(self))


def _frozen(message: str) -> Exception:
    from dataclasses import FrozenInstanceError  # only on this error path

    return FrozenInstanceError(message)


def _setattr(self: Any, name: str, value: Any) -> None:
    raise _frozen(f"cannot assign to field {name!r}")


def _delattr(self: Any, name: str) -> None:
    raise _frozen(f"cannot delete field {name!r}")


class _DataclassView:
    """A record's ``__dataclass_fields__`` (or ``__dataclass_params__``), made on first read
    from a real frozen dataclass with the record's name, fields and defaults, so that the
    ``dataclasses`` functions see the Field objects they would see on the dataclass."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type) -> Any:
        import dataclasses

        namespace: dict[str, Any] = {
            "__module__": owner.__module__, "__qualname__": owner.__qualname__,
            "__annotations__": dict(vars(owner).get("__annotations__", {}))}
        for name, default, make in owner.__record_fields__:  # type: ignore[attr-defined]
            if make is not None:
                namespace[name] = dataclasses.field(default_factory=make)
            elif default is not _NO_DEFAULT:
                namespace[name] = default
        frozen = vars(owner).get("__setattr__") is _setattr
        twin: Any = dataclasses.dataclass(frozen=frozen)(type(owner.__name__, (), namespace))
        type.__setattr__(owner, "__dataclass_fields__", twin.__dataclass_fields__)
        type.__setattr__(owner, "__dataclass_params__", twin.__dataclass_params__)
        return vars(owner)[self.name]


def field_names(cls_or_record: Any) -> tuple[str, ...]:
    """The record's field names in declaration order (``dataclasses.fields``' names)."""
    cls: Any = cls_or_record if isinstance(cls_or_record, type) else type(cls_or_record)
    return tuple(name for name, _, _ in cls.__record_fields__)


def replace(obj: T, **changes: Any) -> T:
    """A copy of the record ``obj`` with ``changes`` (``dataclasses.replace``)."""
    cls: Any = type(obj)
    names = getattr(cls, "__record_fields__", None) and cls.__match_args__
    if not names:
        raise TypeError("replace() should be called on record instances")
    for key in changes:
        if key not in names:
            raise TypeError(f"{cls.__qualname__}.__init__() got an unexpected keyword "
                            f"argument {key!r}")
    # The fields' values with the changes over them, in field order: what __init__ would
    # store (a record has no __post_init__), without checking every field again.
    old = obj.__dict__
    copy = object.__new__(cls)
    copy.__dict__.update({name: old[name] for name in names}, **changes)
    return copy
