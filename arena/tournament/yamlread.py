"""The YAML reader under the tournament config: text -> a tree of Items that know their key path and line.

PyYAML's Python values forget where they came from, but a message about a config must say it
(``t.yaml:12: bots[1].time.move: ...``). So the text is composed into YAML nodes, which keep their lines, and
a value is built from a node only when the schema (arena.tournament.config) asks for it: a mistake in one
value is then reported at its line, and the rest of the file is still checked.

The interface:

- ``read_file(path, expected)``: a YAML file's text (a regular file of at most MAX_BYTES), or YamlError.
- ``read_yaml(text, expected)``: a YamlDocument, or YamlError when the text cannot be read safely at all
  (syntax, a character YAML does not allow, and the bounds below). ``document.root`` is None for no document.
- ``YamlDocument.value(item)``: the Python value of an item (YamlError if it cannot be built);
  ``.entries(item)``: a mapping's (key, value) items, with merges applied and duplicate keys reported;
  ``.elements(item)``: a list's items.
- ``Item``: one value in the tree (its node, key path like ``bots[1].time`` and line).
- ``YamlError``: where (line, key path) and what is wrong, and what was expected.

Bounds: MAX_BYTES of text, MAX_DEPTH levels, MAX_VALUES values (each use of an alias counted, so
``&a [*a, *a, ...]`` bombs are caught before anything is built from them) and number literals of at most
MAX_NUMBER_CHARS characters, each far beyond what a config needs; docs/CONFIG.md lists them.
"""

from __future__ import annotations

import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from arena.units import MiB, clip, size_text

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_NUMBER_CHARS",
    "MAX_VALUES",
    "Item",
    "YamlDocument",
    "YamlError",
    "read_file",
    "read_yaml",
]

MAX_BYTES = 1 * MiB  # a file is read whole before it is parsed
# PyYAML recurses per level, and composes the whole file before anything looks at it
MAX_DEPTH = 64
MAX_VALUES = 100_000
MAX_NUMBER_CHARS = 1000  # a longer number literal costs quadratic time to convert (base 60: 1:2:3:...)

_NUMBER_TAGS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")


class YamlError(Exception):
    """Something wrong in the YAML itself: at ``line`` (1-based; None: the whole file) and ``key_path``
    (like ``bots[1].time``; None: the top), ``what`` is wrong and ``expected`` says what would be right."""

    def __init__(self, line: int | None, key_path: str | None, what: str, expected: str) -> None:
        super().__init__(f"line {line}: {what}; expected {expected}" if line else f"{what}; expected {expected}")
        self.line, self.key_path, self.what, self.expected = line, key_path, what, expected


@dataclass(frozen=True)
class Item:
    """One value in the YAML tree with where it came from: its key path, and its key's node if it has one."""

    node: yaml.Node
    path: str
    key_node: yaml.Node | None = None

    @property
    def line(self) -> int:
        """The key's line (where a user looks for ``time:``), or the value's for a list item."""
        return int((self.key_node or self.node).start_mark.line) + 1

    @property
    def is_mapping(self) -> bool:
        return isinstance(self.node, yaml.MappingNode)

    @property
    def is_list(self) -> bool:
        return isinstance(self.node, yaml.SequenceNode)

    @property
    def is_scalar(self) -> bool:
        return isinstance(self.node, yaml.ScalarNode)


def read_file(path: Path, expected: str = "a YAML file") -> str:
    """The text of the file at ``path`` (universal newlines), or YamlError saying why it cannot be read.

    ``expected`` names what the file should be, for the messages. The size is checked before anything is
    read, and the read stops after MAX_BYTES all the same (the file may grow meanwhile): ``/dev/zero`` or a
    FIFO without a writer must not hang arena or fill its memory.
    """
    try:
        st = path.stat()
        if stat.S_ISDIR(st.st_mode):
            raise YamlError(None, None, "is a directory", expected)
        if not stat.S_ISREG(st.st_mode):
            raise YamlError(None, None, "is not a regular file (a device, FIFO or socket)", expected)
        if st.st_size > MAX_BYTES:
            raise _too_large(expected)
        with path.open("rb") as f:
            data = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise YamlError(None, None, "file not found", expected) from None
    except IsADirectoryError:
        raise YamlError(None, None, "is a directory", expected) from None
    except OSError as e:
        raise YamlError(None, None, f"cannot be read ({e.strerror})", "a readable YAML file") from None
    if len(data) > MAX_BYTES:
        raise _too_large(expected)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise YamlError(None, None, f"is not UTF-8 text ({e.reason})", expected) from None
    # as Path.read_text would: universal newlines (a config's text is kept in the database)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _too_large(expected: str) -> YamlError:
    return YamlError(None, None, f"is larger than {size_text(MAX_BYTES)}",
                     f"{expected} of at most {MAX_BYTES} bytes")


def read_yaml(text: str, expected: str = "a YAML file") -> YamlDocument:
    """``text`` composed into a YamlDocument, its tree checked against the bounds; YamlError else.

    Nothing is built from the nodes yet (see YamlDocument): this is everything that stops a reading as a
    whole, each reported at the line where it happens. ``expected`` names what the text should be.
    """
    if len(text) > MAX_BYTES:  # characters: a UTF-8 file of at most that many bytes has no more
        raise _too_large(expected)
    try:
        loader = _Loader(text)
    except yaml.reader.ReaderError as e:  # given a str, the reader checks every character at once
        raise _reader_error(text, e) from None
    try:
        root = loader.get_single_node()
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        what = " ".join(s for s in (e.context, e.problem) if s)
        raise YamlError(mark.line + 1 if mark else None, None, f"YAML syntax error: {what}",
                        "valid YAML (check indentation, quotes and the space after each colon)") from None
    except yaml.reader.ReaderError as e:
        raise _reader_error(text, e) from None
    except yaml.YAMLError as e:
        raise YamlError(None, None, f"YAML error: {clip(str(e))}", "valid YAML text") from None
    except RecursionError:  # not expected past _Loader's depth bound; a safety net all the same
        raise YamlError(loader.get_mark().line + 1, None, "values nested too deeply",
                        f"at most {MAX_DEPTH} levels of nesting") from None
    if root is not None:
        _check_tree(root)
    return YamlDocument(loader, None if root is None else Item(root, ""))


class YamlDocument:
    """A composed YAML document: its ``root`` Item (None when the text holds no document), and the values of
    its items built on demand, so that a problem in one is reported without stopping the others.

    Reading the same item twice gives the same result; the document holds PyYAML's loader, which caches
    what it has built.
    """

    def __init__(self, loader: _Loader, root: Item | None) -> None:
        self._loader = loader
        self.root = root

    def value(self, item: Item) -> Any:
        """The Python value of ``item`` (and everything in it), or YamlError if it cannot be built."""
        try:
            return self._loader.construct_object(item.node, deep=True)
        except yaml.YAMLError as e:
            problem = getattr(e, "problem", None) or str(e)
            raise YamlError(item.line, item.path, f"cannot read this value ({clip(problem)})",
                            "plain YAML values") from None
        except RecursionError:
            raise YamlError(item.line, item.path, "values nested too deeply",
                            f"at most {MAX_DEPTH} levels of nesting") from None
        except Exception as e:  # noqa: BLE001 - constructors call int(), float(), datetime(), base64 ...
            raise YamlError(item.line, item.path, f"cannot read this value ({clip(str(e))})",
                            "plain YAML values") from None

    def entries(self, item: Item) -> tuple[list[tuple[Item, Item]] | None, list[YamlError]]:
        """A mapping item's ``(key, value)`` items in order, and the problems found on the way.

        Merges (``<<: *anchor``) are applied: the merged keys come first, so a later key of the mapping's
        own overrides one. A key item has its mapping's path (a key is named by its mapping); a value item
        the path under its key, and its key's line. The problems, in the order of the text: each key written
        twice (PyYAML would silently keep the last), then a merge that is not a mapping, in which case the
        items are None. The caller builds each key with ``value`` (it may fail, or not be text).
        """
        node = item.node
        assert isinstance(node, yaml.MappingNode), "entries() of an item that is not a mapping"
        problems: list[YamlError] = []
        seen: dict[Any, int] = {}
        # before the merges are applied: a merged key is not a duplicate, the mapping's own keys may be
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge" or not isinstance(key_node, yaml.ScalarNode):
                continue
            key = key_node.value
            line = key_node.start_mark.line + 1
            if key in seen:
                problems.append(YamlError(line, _child_path(item.path, str(key)),
                                          f"duplicate key (first at line {seen[key]})", "each key once"))
            seen.setdefault(key, line)
        try:
            self._loader.flatten_mapping(node)  # in place; again on the same node, it finds nothing to merge
        except yaml.YAMLError as e:
            problems.append(YamlError(item.line, item.path, f"bad merge ({getattr(e, 'problem', e)})",
                                      "`<<:` followed by a mapping"))
            return None, problems
        pairs = []
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            pairs.append((Item(key_node, item.path), Item(value_node, _child_path(item.path, key), key_node)))
        return pairs, problems

    def elements(self, item: Item) -> list[Item]:
        """A list item's items, each at the path ``<list>[i]``."""
        node = item.node
        assert isinstance(node, yaml.SequenceNode), "elements() of an item that is not a list"
        return [Item(child, _child_path(item.path, i)) for i, child in enumerate(node.value)]


class _Loader(yaml.SafeLoader):
    """A SafeLoader that stops composing past MAX_DEPTH levels or MAX_VALUES values.

    PyYAML composes recursively (some hundreds of levels end in a RecursionError) and composes the whole file
    before anything looks at it (half a million values in a 1 MiB file take many seconds): both stop here
    with a YamlError, at the line where the bound is passed.
    """

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.paths = [""]  # the key path of each node being composed, to name it in a problem
        self.values = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        # `index` is the key node for a mapping's value, the position for a list item, None for a key
        path = _child_path(self.paths[-1], index.value if isinstance(index, yaml.ScalarNode) else index)
        self.values += 1
        line = self.peek_event().start_mark.line + 1  # type: ignore[no-untyped-call]
        if self.values > MAX_VALUES:
            raise YamlError(line, _shown_path(path), f"more than {MAX_VALUES} values",
                            f"at most {MAX_VALUES} values in the whole file")
        if len(self.paths) > MAX_DEPTH:
            raise YamlError(line, _shown_path(path), f"values nested more than {MAX_DEPTH} levels deep",
                            f"at most {MAX_DEPTH} levels of nesting")
        self.paths.append(path)
        try:
            return super().compose_node(parent, index)
        finally:
            self.paths.pop()


def _reader_error(text: str, e: yaml.reader.ReaderError) -> YamlError:
    """A character YAML does not allow, on one line (the error's own text spans two)."""
    line = text.count("\n", 0, e.position) + 1
    return YamlError(line, None, f"YAML error: character #x{e.character:04x} is not allowed ({e.reason})",
                     "printable text (write other characters as escapes in double quotes: \"\\x07\")")


def _check_tree(root: yaml.Node) -> None:
    """YamlError for a tree too deep, too large or with a recursive alias to read safely.

    Every later step builds Python values from the nodes (recursively, and expanding each alias), so this
    walk, iterative and counting each use of an alias, comes first and bounds what they do.
    """
    count = 0
    on_path: set[int] = set()  # ids of the nodes that contain the current one: a cycle is an alias loop
    stack: list[tuple[yaml.Node, int, str, bool]] = [(root, 1, "", False)]
    while stack:
        node, depth, path, leaving = stack.pop()
        if leaving:
            on_path.discard(id(node))
            continue
        line, key = node.start_mark.line + 1, _shown_path(path)
        if id(node) in on_path:
            raise YamlError(line, key, "an alias refers to a value that contains it",
                            "values that do not contain themselves")
        count += 1
        if count > MAX_VALUES:
            raise YamlError(line, key, f"more than {MAX_VALUES} values (each use of an alias counts)",
                            f"at most {MAX_VALUES} values in the whole file")
        if depth > MAX_DEPTH:
            raise YamlError(line, key, f"values nested more than {MAX_DEPTH} levels deep",
                            f"at most {MAX_DEPTH} levels of nesting")
        if isinstance(node, yaml.ScalarNode):
            if node.tag in _NUMBER_TAGS and len(node.value) > MAX_NUMBER_CHARS:
                raise YamlError(line, key, f"a number of {len(node.value)} characters",
                                f"a number of at most {MAX_NUMBER_CHARS} characters")
            continue
        on_path.add(id(node))
        stack.append((node, depth, path, True))
        if isinstance(node, yaml.SequenceNode):
            stack.extend((child, depth + 1, _child_path(path, i), False)
                         for i, child in reversed(list(enumerate(node.value))))
        else:
            for k, v in reversed(node.value):
                stack.append((v, depth + 1, _child_path(path, k.value if isinstance(k, yaml.ScalarNode)
                                                          else None), False))
                stack.append((k, depth + 1, path, False))


def _child_path(path: str, key: object) -> str:
    """The key path of a value inside the value at ``path``: under a key (text), at a position (int)."""
    if isinstance(key, int) and not isinstance(key, bool):
        return f"{path}[{key}]"
    if isinstance(key, str):
        return f"{path}.{key}" if path else key
    return path  # a mapping's key, or a key that is not text: named by its mapping


def _shown_path(path: str) -> str | None:
    """A key path for a message: ``x[0][0][0]...`` rather than 64 levels of ``[0]``; None for the top."""
    path = re.sub(r"((?:\[\d+\]){3})(?:\[\d+\])+", r"\1...", path)
    return clip(path, 100) or None
