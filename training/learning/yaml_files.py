"""Reading YAML config files within limits: :func:`read_yaml`, :func:`parse_sets` and
:func:`load_env_config`.

A config file (or a ``--set`` value) is checked before any Python object is built: its size
(1 MiB), its nesting depth (64 levels, aliases expanded), the number of values once its
aliases are expanded (100,000: a "billion laughs" file is refused in milliseconds), and no
key twice in one mapping. A directory, FIFO or device is named as what it is (a FIFO is never
opened blocking), and text that is not UTF-8 is refused naming the file and the byte. Every
failure is a one-line ``ValueError``, its values shown truncated (:func:`shown`).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import yaml

import braincards.configs as configs_package
from braincards.training.messages import SHOWN_CHARS, shorten, shown

# What a config file (or a --set value) may hold, checked before any Python object is built:
MAX_CONFIG_BYTES = 1 << 20  # 1 MiB
MAX_CONFIG_DEPTH = 64  # nesting levels, counted through aliases
MAX_CONFIG_NODES = 100_000  # values (scalars, lists, mappings), each alias counted as a copy


class _LimitedLoader(yaml.SafeLoader):
    """PyYAML's SafeLoader with the limits of a config: at most MAX_CONFIG_DEPTH levels of
    nesting while the node tree is composed (so a 100,000-deep file stops at level 65, long
    before Python's recursion limit), and no duplicate key in a mapping. The size of the
    tree with every alias expanded is checked by :func:`_check_tree` before any Python
    object is built."""

    def __init__(self, stream):
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent, index):
        self._depth += 1
        try:
            if self._depth > MAX_CONFIG_DEPTH:
                line = self.peek_event().start_mark.line + 1
                raise _Refused(f"nests deeper than {MAX_CONFIG_DEPTH} levels (line {line}); "
                               f"the limit is {MAX_CONFIG_DEPTH}")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: dict = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue  # `<<: *base`: the keys it brings may be overridden here
                key = self.construct_object(key_node, deep=deep)
                line = key_node.start_mark.line + 1
                try:
                    first = seen.get(key)
                except TypeError:  # an unhashable key: the constructor says so below
                    continue
                if first is not None:
                    raise _Refused(f"has the key {shown(key)} twice in one mapping (line {first} "
                                   f"and line {line}); keep one")
                seen[key] = line
        return super().construct_mapping(node, deep=deep)


class _Refused(ValueError):
    """A YAML text past a limit of :func:`_load_yaml` (the message lacks the source)."""


def _children(node) -> list:
    if isinstance(node, yaml.SequenceNode):
        return node.value
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _check_tree(root) -> None:
    """_Refused if the node tree, every alias expanded, holds more than MAX_CONFIG_NODES
    values or nests deeper than MAX_CONFIG_DEPTH, or if an alias refers to a node that
    contains it. Iterative, and each node is measured once (an alias is a shared node), so a
    billion-laughs text costs as little as its own length."""
    size: dict[int, int] = {}
    height: dict[int, int] = {}
    open_: set[int] = set()  # the nodes being measured: the path from the root
    stack = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        line = node.start_mark.line + 1
        if children_done:
            open_.discard(key)
            kids = _children(node)
            size[key] = 1 + sum(size[id(k)] for k in kids)
            height[key] = 1 + max((height[id(k)] for k in kids), default=0)
            if height[key] > MAX_CONFIG_DEPTH:
                raise _Refused(f"nests deeper than {MAX_CONFIG_DEPTH} levels once its aliases are expanded "
                               f"(line {line}); the limit is {MAX_CONFIG_DEPTH}")
            if size[key] > MAX_CONFIG_NODES:
                raise _Refused(f"holds more than {MAX_CONFIG_NODES:,} values once its aliases are expanded "
                               f"(line {line}); the limit is {MAX_CONFIG_NODES:,}")
            continue
        if key in size:
            continue
        if key in open_:
            raise _Refused(f"has an alias inside the node it refers to (line {line}): "
                           f"a recursive structure")
        open_.add(key)
        stack.append((node, True))
        stack.extend((k, False) for k in _children(node) if id(k) not in size)


def _load_yaml(text: str) -> Any:
    """``yaml.safe_load(text)`` within the limits (_Refused, or yaml.YAMLError)."""
    loader = _LimitedLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_tree(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _yaml_problem(err: yaml.YAMLError) -> str:
    """A YAML error in one line: its problem and where (line and column, from 1)."""
    problem = getattr(err, "problem", None)
    mark = getattr(err, "problem_mark", None)
    if problem is None:
        return shorten(" ".join(str(err).split()), 1000)
    where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
    context = getattr(err, "context", None)
    return shorten(f"{problem}{where}" + (f", {context}" if context else ""), 1000)


def _parse_yaml(text: str, label: str) -> Any:
    """:func:`_load_yaml` with every failure a one-line ValueError that starts with ``label``."""
    try:
        return _load_yaml(text)
    except _Refused as err:
        raise ValueError(f"{label} {err}") from None
    except yaml.YAMLError as err:
        raise ValueError(f"{label} is not valid YAML: {_yaml_problem(err)}") from None
    except ValueError as err:  # a value that cannot be built, e.g. an int past Python's digit limit
        raise ValueError(f"{label} has a value that cannot be read: {shorten(str(err), 2 * SHOWN_CHARS)}") from None


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def _not_regular(mode: int) -> str | None:
    """What a file that is not a regular file is (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def shipped_configs_dir() -> Path:
    """The configs shipped with the package (``braincards.configs``)."""
    return Path(next(iter(configs_package.__path__)))


def shipped_configs() -> list[str]:
    """The names of the shipped configs (``"the_brain/train_3p_quick"``), sorted."""
    root = shipped_configs_dir()
    return sorted(p.relative_to(root).with_suffix("").as_posix() for p in root.glob("*/*.yaml"))


def config_path(name: str | Path) -> Path:
    """A config given as a path (which wins when it exists) or as the name of a shipped config
    (``the_brain/train_3p_quick``, ``.yaml`` optional), as the path to read; a name that is
    neither is returned as it is, for :func:`read_yaml` to report."""
    path = Path(os.path.expanduser(str(name)))
    if path.exists() or path.is_absolute() or str(name).startswith("."):
        return path
    root = shipped_configs_dir()
    found = root / (path if path.suffix in (".yaml", ".yml") else path.with_suffix(".yaml"))
    if root.resolve() in found.resolve().parents and found.is_file():
        return found
    return path


def read_yaml(path: str | Path, what: str = "config file") -> Any:
    """The data of a YAML file (``{}`` for an empty one); ValueError if it is missing, not a
    regular file, larger than MAX_CONFIG_BYTES, not UTF-8, not valid YAML, has a duplicate
    key, or nests or expands (aliases) past MAX_CONFIG_DEPTH / MAX_CONFIG_NODES."""
    label = f"{what} {path}"
    path = config_path(path)
    try:
        kind = _not_regular(os.stat(path).st_mode)  # before opening: opening a FIFO would block
    except (FileNotFoundError, NotADirectoryError):
        names = ", ".join(shipped_configs())
        raise ValueError(f"{label} does not exist: it is neither a file nor the name of a shipped config "
                         f"({names})") from None
    except OSError as err:
        raise ValueError(f"{label} cannot be read: {err.strerror or err}") from None
    if kind:
        raise ValueError(f"{label} is {kind}, not a regular file")
    try:  # non-blocking: if a FIFO took the file's place since the stat, it does not block
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            kind = _not_regular(os.fstat(f.fileno()).st_mode)
            if kind:
                raise ValueError(f"{label} is {kind}, not a regular file")
            raw = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as err:
        raise ValueError(f"{label} cannot be read: {err.strerror or err}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ValueError(f"{label} is larger than {MAX_CONFIG_BYTES:,} bytes (1 MiB), the limit for a config file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{label} is not UTF-8 text: byte {raw[err.start]:#04x} at offset {err.start} "
                         f"cannot be decoded") from None
    data = _parse_yaml(text, label)
    return {} if data is None else data


def parse_sets(items: list[str] | None) -> dict[str, Any]:
    """``--set KEY=VALUE`` options -> ``{KEY: value}`` (each value parsed as YAML, within the
    limits of a config file)."""
    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        given = shown(item)
        if not sep:
            raise ValueError(f"--set {given}: expected KEY=VALUE")
        if not key.strip():
            raise ValueError(f"--set {given}: empty key; expected KEY=VALUE")
        if len(value.encode("utf-8", "surrogateescape")) > MAX_CONFIG_BYTES:
            raise ValueError(f"--set {shown(key.strip())}: the value is larger than {MAX_CONFIG_BYTES:,} bytes")
        out[key.strip()] = _parse_yaml(value, f"--set {given}")
    return out


def load_env_config(path: str | None, sets: list[str] | None) -> dict:
    """An env config from a YAML file (a mapping of env options, or a mapping with an
    ``env`` mapping inside) plus ``--set KEY=VALUE`` overrides (values parsed as YAML)."""
    config: dict = {}
    if path:
        data = read_yaml(path)
        if isinstance(data, dict) and isinstance(data.get("env"), dict):
            data = data["env"]
        if not isinstance(data, dict):
            raise ValueError(f"config file {path} must hold a mapping of env options")
        config.update(data)
    config.update(parse_sets(sets))
    return config


__all__ = ["config_path", "load_env_config", "parse_sets", "read_yaml", "shipped_configs", "shipped_configs_dir"]
