"""Ray actor classes as the type checker should see them.

`@ray.remote(num_cpus=0)` turns a class into an actor class at run time, but
Ray's type hints describe neither that (with options, the decorator is typed
for functions only, so a checker sees the bare class and refuses
`.options(...)`) nor its handles' methods (`handle.start.remote()`). So an
actor class is used untyped; what crosses the call is checked where it lands."""

from __future__ import annotations

from typing import Any


def actor_class(decorated: type) -> Any:
    """The actor class `@ray.remote(...)` made of `decorated` (the same object)."""
    return decorated
