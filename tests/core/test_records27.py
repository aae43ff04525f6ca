"""``@record`` behaves as ``@dataclass(frozen=True)`` (issue 27): each check builds the same
class both ways and compares what the two do, so the expected behaviour is the standard
library's, not the code under test."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from torchrig.records import field, field_names, mutable_record, record, replace


@record
class Point:
    """A record with a required field, a default and a factory."""

    x: int
    label: str = "p"
    tags: dict[str, int] = field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class PointDC:
    x: int
    label: str = "p"
    tags: dict[str, int] = dataclasses.field(default_factory=dict)


@record
class Span:
    start: int
    ends: tuple[int, ...] = ()


@record
class Pair:
    left: Point
    right: tuple[int, ...] = ()


def _made_both_ways(*args: object, **kwargs: object) -> tuple[Point, PointDC]:
    return Point(*args, **kwargs), PointDC(*args, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(("args", "kwargs"), [
    ((1,), {}), ((1, "q"), {}), ((), {"x": 2, "tags": {"a": 1}}), ((3,), {"label": "z"}),
])
def test_init_repr_and_vars_match_the_dataclass(args: tuple, kwargs: dict) -> None:
    rec, dc = _made_both_ways(*args, **kwargs)
    assert repr(rec) == repr(dc).replace("PointDC", "Point")
    assert vars(rec) == vars(dc) and list(vars(rec)) == list(vars(dc))


def test_equality_and_hash_follow_the_fields_and_the_class() -> None:
    a, b, c = Point(1, "p"), Point(1), Point(2)
    assert a == b and a != c
    # As the dataclass's: equal only to the same class (a twin with the same fields is not).
    assert a != PointDC(1) and PointDC(1) == PointDC(1)
    with pytest.raises(TypeError):
        hash(a)  # a dict field: unhashable, as the dataclass is
    with pytest.raises(TypeError):
        hash(PointDC(1))
    span = Span(1, (2, 3))
    twin = dataclasses.make_dataclass("Span", ["start", "ends"], frozen=True)(1, (2, 3))
    assert hash(span) == hash(twin) == hash((1, (2, 3)))  # both hash the tuple of the values
    assert span == Span(1, (2, 3)) and span != Span(1) and {span: 1}[Span(1, (2, 3))] == 1


def test_a_default_factory_gives_each_instance_its_own_value() -> None:
    first, second = Point(1), Point(1)
    assert first.tags == {} and first.tags is not second.tags
    assert "tags" not in vars(Point)  # like the dataclass, no shared class attribute
    assert not hasattr(PointDC, "tags")


@pytest.mark.parametrize("change", [
    lambda p: setattr(p, "x", 5), lambda p: setattr(p, "new", 5), lambda p: delattr(p, "x"),
])
def test_assignment_raises_what_the_frozen_dataclass_raises(change) -> None:
    rec, dc = _made_both_ways(1)
    with pytest.raises(dataclasses.FrozenInstanceError) as expected:
        change(dc)
    with pytest.raises(dataclasses.FrozenInstanceError) as got:
        change(rec)
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize(("args", "kwargs"), [
    ((), {}), ((1,), {"y": 2}), ((1, "a", {}, 4), {}), ((1,), {"x": 2}),
])
def test_bad_arguments_raise_type_error_as_the_dataclass_does(args: tuple, kwargs: dict) -> None:
    with pytest.raises(TypeError):
        PointDC(*args, **kwargs)
    with pytest.raises(TypeError):
        Point(*args, **kwargs)


def test_the_dataclasses_functions_see_the_dataclass_fields() -> None:
    rec = Pair(Point(1, tags={"a": 1}), (2,))
    assert dataclasses.is_dataclass(rec) and dataclasses.is_dataclass(Pair)
    ours = [(f.name, f.type, f.default, f.default_factory) for f in dataclasses.fields(Point)]
    theirs = [(f.name, f.type, f.default, f.default_factory) for f in dataclasses.fields(PointDC)]
    assert ours == theirs
    assert dataclasses.asdict(rec) == {"left": {"x": 1, "label": "p", "tags": {"a": 1}},
                                       "right": (2,)}
    moved = dataclasses.replace(rec, right=(3,))
    assert moved == Pair(Point(1, tags={"a": 1}), (3,)) and type(moved) is Pair
    assert Point.__match_args__ == PointDC.__match_args__ == ("x", "label", "tags")
    assert Point.__dataclass_params__.frozen and Point.__dataclass_params__.eq


def test_replace_and_field_names_need_no_dataclasses_and_agree_with_them() -> None:
    p = Point(1, "a")
    assert replace(p, label="b") == dataclasses.replace(p, label="b") == Point(1, "b")
    assert field_names(Point) == field_names(p) == ("x", "label", "tags")
    with pytest.raises(TypeError):
        replace(p, y=1)
    with pytest.raises(TypeError):
        replace(PointDC(1), x=2)  # a dataclass that is not a record


def test_a_record_pickles_and_copies() -> None:
    import copy

    p = Pair(Point(1, tags={"a": 1}), (2,))
    assert pickle.loads(pickle.dumps(p)) == p
    assert copy.deepcopy(p) == p and copy.copy(p) == p


def test_the_workload_is_the_same_value_both_ways() -> None:
    from torchrig.planning.workload import Workload, default_workload

    w = default_workload("llm_inference")
    assert field_names(Workload) == tuple(f.name for f in dataclasses.fields(Workload))
    assert replace(w, batch_size=3) == dataclasses.replace(w, batch_size=3) != w
    assert pickle.loads(pickle.dumps(w)) == w


def _define(body: dict) -> type:
    return record(type("Bad", (), body))


@pytest.mark.parametrize(("body", "error"), [
    ({"__annotations__": {"a": "list[int]"}, "a": []}, ValueError),  # mutable default
    ({"__annotations__": {"a": "int", "b": "int"}, "a": 1}, TypeError),  # default, then none
    ({"__annotations__": {"a": "ClassVar[int]"}, "a": 1}, TypeError),
    ({"__annotations__": {"a": "int"}, "__post_init__": lambda self: None}, TypeError),
    ({"__annotations__": {"a": "int"}, "__eq__": lambda self, o: True}, TypeError),
])
def test_what_a_record_does_not_support_is_refused_when_defined(body: dict, error: type) -> None:
    with pytest.raises(error):
        _define(body)
    with pytest.raises(TypeError):
        record(type("Child", (Point,), {"__annotations__": {"y": "int"}, "y": 0}))


@mutable_record
class Basket:
    """A mutable record: what ``@dataclass`` (not frozen) gives."""

    name: str
    items: list[int] = field(default_factory=list)
    count: int = 1


@dataclasses.dataclass
class BasketDC:
    name: str
    items: list[int] = dataclasses.field(default_factory=list)
    count: int = 1


def test_a_mutable_record_assigns_compares_and_is_unhashable_as_the_dataclass() -> None:
    rec, dc = Basket("b", [1]), BasketDC("b", [1])
    assert repr(rec) == repr(dc).replace("BasketDC", "Basket")
    rec.count, dc.count = 3, 3  # assignment is allowed on both
    rec.items.append(2)
    dc.items.append(2)
    assert vars(rec) == vars(dc) == {"name": "b", "items": [1, 2], "count": 3}
    assert rec == Basket("b", [1, 2], 3) and rec != Basket("b")
    assert Basket.__hash__ is None and BasketDC.__hash__ is None
    with pytest.raises(TypeError):
        hash(rec)
    del rec.count  # as the dataclass's: the instance value goes, the class default shows
    del dc.count
    assert rec.count == dc.count == 1


def test_a_mutable_record_is_a_non_frozen_dataclass_to_the_dataclasses_functions() -> None:
    rec = Basket("b", [1])
    params = Basket.__dataclass_params__  # type: ignore[attr-defined]
    assert not params.frozen and params.eq
    assert [f.name for f in dataclasses.fields(rec)] == ["name", "items", "count"]
    assert dataclasses.asdict(rec) == dataclasses.asdict(BasketDC("b", [1]))
    # replace (ours and dataclasses') shares the field values, as dataclasses.replace does.
    ours, theirs = replace(rec, count=2), dataclasses.replace(rec, count=2)
    assert ours == theirs == Basket("b", [1], 2) and ours.items is rec.items is theirs.items
    assert pickle.loads(pickle.dumps(rec)) == rec
    with pytest.raises(TypeError):
        mutable_record(type("Child", (Basket,), {"__annotations__": {"y": "int"}, "y": 0}))
    with pytest.raises(TypeError):
        mutable_record(type("Hashed", (), {"__annotations__": {"a": "int"},
                                           "__hash__": lambda self: 1}))
