"""Sealed oracle of the toposort environment: toposort's documented behaviour, written by us."""

import toposort
from toposort import CircularDependencyError, toposort_flatten


def test_self_dependency_is_ignored():
    assert toposort_flatten({1: {1, 2}, 2: set()}) == [2, 1]


def test_self_dependency_only_item():
    assert list(toposort.toposort({"a": {"a"}})) == [{"a"}]


def test_orders_by_dependency():
    data = {2: {11}, 9: {11, 8}, 10: {11, 3}, 11: {7, 5}, 8: {7, 3}}
    assert list(toposort.toposort(data)) == [{3, 5, 7}, {8, 11}, {2, 9, 10}]


def test_flatten_sorts_each_level():
    assert toposort_flatten({"b": {"a"}, "c": {"a"}, "a": set()}) == ["a", "b", "c"]


def test_empty_input_yields_nothing():
    assert list(toposort.toposort({})) == []


def test_cycle_raises():
    try:
        list(toposort.toposort({1: {2}, 2: {1}}))
    except CircularDependencyError as exc:
        assert exc.data == {1: {2}, 2: {1}}
    else:
        raise AssertionError("a cycle must raise CircularDependencyError")


def test_input_is_not_modified():
    data = {1: {2}, 2: set()}
    toposort_flatten(data)
    assert data == {1: {2}, 2: set()}
