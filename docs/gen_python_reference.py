"""Writes docs/reference/python.md, the Python API reference, from the package's docstrings.

Run it from the repository root after changing a public name or a docstring:

    .venv/bin/python docs/gen_python_reference.py

``tests/test_reference.py`` fails while the committed page differs from what this writes.

It documents every name in ``__all__`` of ``ecmsketch``, ``ecmsketch.functions`` and
``ecmsketch.monitor``, in that order, with only ``inspect``: the signature, then the docstring with
its numpydoc sections (Parameters, Returns, Examples, ...) and Sphinx ``:param x:`` fields turned into
Markdown, and Sphinx roles such as :func:`configure` turned into code spans, linked when they name
something on the page. It imports the package (and so pyspark, which ``ecmsketch.functions``
imports) but starts no JVM and no Spark session: ``tests/test_reference.py`` checks that too.
"""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import os
import re
import sys
from typing import Any, Dict, List, Optional, Tuple, TypeVar

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = os.path.join("docs", "reference", "python.md")
COMMAND = "python docs/gen_python_reference.py"
MODULES = ("ecmsketch", "ecmsketch.functions", "ecmsketch.monitor")
#: Type aliases the signatures use, by module: the page spells out their definitions.
ALIASES = {
    "ecmsketch": (("ecmsketch.sketches._base", ("Key",)), ("ecmsketch._units", ("TimeLike", "RangeLike"))),
    "ecmsketch.functions": (("ecmsketch.functions._common", ("ColumnOrName", "Window", "Now")),),
}
#: Signatures longer than this put one parameter on a line.
WIDTH = 96

HEADER = f"""# Python API reference

Every public name of `ecmsketch`, `ecmsketch.functions` and `ecmsketch.monitor`, with its signature
and docstring. This page is generated from the docstrings by `{COMMAND}`
(run from the repository root): do not edit it by hand; `tests/test_reference.py` fails while it
is out of date. The [guides](../guide/README.md) show the same API at work, one task per page.
"""


# --------------------------------------------------------------------------------------------- names


def public_names(module: Any) -> List[str]:
    """The module's ``__all__`` in its order, else its public names sorted."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = sorted(n for n in vars(module) if not n.startswith("_") and not inspect.ismodule(getattr(module, n)))
    return list(names)


def anchor(qualname: str) -> str:
    return qualname.replace(".", "-").lower()


def _defined_in_package(owner: type) -> bool:
    return (getattr(owner, "__module__", "") or "").split(".")[0] == "ecmsketch"


def class_members(cls: type) -> List[Tuple[str, Any, type]]:
    """(name, raw attribute, defining class) of the public members a class defines or inherits from
    the package's classes: the class's own in definition order, then its bases' (nearest first)."""
    seen = set()
    out = []
    for owner in cls.__mro__:
        if not _defined_in_package(owner):
            continue
        for name, attr in vars(owner).items():
            if name.startswith("_") or name in seen:
                continue
            seen.add(name)
            if dataclasses.is_dataclass(cls) and name in {f.name for f in dataclasses.fields(cls)}:
                continue  # a field's default, listed with the fields
            if isinstance(attr, (staticmethod, classmethod, property)) or inspect.isfunction(attr):
                out.append((name, attr, owner))
    return out


# ----------------------------------------------------------------------------------------- signatures


def _default(value: Any) -> str:
    text = repr(value)
    return re.sub(r" (?:object )?at 0x[0-9a-fA-F]+", "", text)  # no memory addresses


def _annotation(a: Any) -> str:
    text = a if isinstance(a, str) else inspect.formatannotation(a)
    return re.sub(r"'([A-Za-z_][\w.]*)'", r"\1", text)  # forward references without their quotes


def format_signature(name: str, sig: inspect.Signature, prefix: str = "") -> str:
    """``name(params) -> ret`` as code, one parameter a line when it is long."""
    parts = []
    star_done = False
    last_kind = None
    for p in sig.parameters.values():
        if p.kind == p.KEYWORD_ONLY and not star_done and last_kind != p.VAR_POSITIONAL:
            parts.append("*")
        if p.kind in (p.KEYWORD_ONLY, p.VAR_POSITIONAL):
            star_done = True
        if last_kind == p.POSITIONAL_ONLY and p.kind != p.POSITIONAL_ONLY:
            parts.append("/")
        text = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "") + p.name
        if p.annotation is not p.empty:
            text += ": " + _annotation(p.annotation)
        if p.default is not p.empty:
            text += (" = " if p.annotation is not p.empty else "=") + _default(p.default)
        parts.append(text)
        last_kind = p.kind
    if last_kind == inspect.Parameter.POSITIONAL_ONLY:
        parts.append("/")
    ret = "" if sig.return_annotation is inspect.Signature.empty else " -> " + _annotation(sig.return_annotation)
    one = f"{prefix}{name}({', '.join(parts)}){ret}"
    if len(one) <= WIDTH:
        return one
    inner = "".join(f"    {p},\n" for p in parts)
    return f"{prefix}{name}(\n{inner}){ret}"


def signature_of(obj: Any) -> Optional[inspect.Signature]:
    try:
        return inspect.signature(obj)
    except (TypeError, ValueError):
        return None


# ----------------------------------------------------------------------------------------- docstrings


ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|exc|obj|const):`(~?)([^`<]+?)\s*(?:<([^`>]+)>)?`")


class Context:
    """Where a docstring is rendered: its module and class (to resolve a role's target), and every
    anchor of the page."""

    def __init__(self, anchors: Dict[str, str], module: str, cls: Optional[str] = None):
        self.anchors = anchors
        self.module = module
        self.cls = cls

    def resolve(self, target: str) -> Optional[str]:
        target = target.lstrip(".")
        candidates = [target]
        if self.cls:
            candidates.append(f"{self.module}.{self.cls}.{target}")
        candidates += [f"{self.module}.{target}", f"ecmsketch.{target}"]
        for c in candidates:
            if c in self.anchors:
                return self.anchors[c]
        return None


def inline(text: str, ctx: Context) -> str:
    """Sphinx roles to (linked) code spans, ``literals`` to `literals`."""
    def role(m: "re.Match[str]") -> str:
        tilde, title, target = m.group(1), m.group(2).strip(), m.group(3)
        if target is None:
            target = title
            title = title.lstrip(".").split(".")[-1] if tilde else title.lstrip(".")
        link = ctx.resolve(target.strip())
        return f"[`{title}`](#{link})" if link else f"`{title}`"

    return _escape(re.sub(r"``(.+?)``", r"`\1`", ROLE.sub(role, text)))


def _escape(text: str) -> str:
    """Outside code spans and list markers, < and * are text: no HTML tags (ARRAY<DOUBLE>), no
    emphasis (delta * phi)."""
    out = []
    for line in text.split("\n"):
        m = re.match(r"(\s*[*-] )?(.*)$", line)
        lead, rest = (m.group(1) or ""), m.group(2)
        parts = re.split(r"(`[^`]*`)", rest)
        parts[::2] = [re.sub(r"\*(?! )|(?<! )\*", r"\\*", re.sub(r"<(?=[A-Za-z/!?])", "&lt;", p)) for p in parts[::2]]
        out.append(lead + "".join(parts))
    return "\n".join(out)


def _sections(doc: str) -> Tuple[List[str], List[Tuple[str, List[str]]]]:
    """The lines before the first numpydoc section, and each section's title and lines."""
    lines = doc.splitlines()
    head: List[str] = []
    sections: List[Tuple[str, List[str]]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        under = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if line.strip() and under and set(under) == {"-"} and len(under) == len(line.strip()):
            sections.append((line.strip(), []))
            i += 2
            continue
        (sections[-1][1] if sections else head).append(line)
        i += 1
    return head, sections


def _dedent(lines: List[str]) -> List[str]:
    indents = [len(x) - len(x.lstrip()) for x in lines if x.strip()]
    cut = min(indents, default=0)
    return [x[cut:] for x in lines]


def _paragraphs(lines: List[str]) -> List[str]:
    """Blocks separated by blank lines, each joined to one line (or kept as lines when it is a list)."""
    blocks: List[List[str]] = [[]]
    for line in lines:
        if line.strip():
            blocks[-1].append(line)
        elif blocks[-1]:
            blocks.append([])
    return ["\n".join(b) for b in blocks if b]


def _entries(lines: List[str]) -> List[Tuple[str, str]]:
    """numpydoc entries: (the unindented head line, its indented description joined)."""
    out: List[Tuple[str, List[str]]] = []
    for line in lines:
        if not line.strip():
            if out:
                out[-1][1].append("")
            continue
        if not line[0].isspace():
            out.append((line.strip(), []))
        elif out:
            out[-1][1].append(line.strip())
    return [(h, " ".join(x for x in d if x)) for h, d in out]


def _render_params(entries: List[Tuple[str, str]], ctx: Context) -> List[str]:
    md = []
    for head, desc in entries:
        name, _, typ = head.partition(" : ")
        names = ", ".join(f"`{n.strip()}`" for n in name.split(","))
        typ_md = f" ({inline(typ.strip(), ctx)})" if typ.strip() else ""
        md.append(f"- {names}{typ_md}: {inline(desc, ctx)}" if desc else f"- {names}{typ_md}")
    return md


def _render_returns(entries: List[Tuple[str, str]], ctx: Context) -> List[str]:
    md = []
    for head, desc in entries:
        name, sep, typ = head.partition(" : ")
        lead = f"`{name.strip()}` ({inline(typ.strip(), ctx)})" if sep else inline(head, ctx)
        md.append(f"- {lead}: {inline(desc, ctx)}" if desc else f"- {lead}")
    return md


def _render_examples(lines: List[str], ctx: Context) -> List[str]:
    """Doctest chunks as ```pycon blocks (verbatim), the prose between them as paragraphs."""
    md: List[str] = []
    prose: List[str] = []
    code: List[str] = []

    def flush_prose() -> None:
        if prose:
            md.extend(inline(p, ctx) for p in _paragraphs(prose))
            md.append("")
            prose.clear()

    def flush_code() -> None:
        if code:
            md.extend(["```pycon", *code, "```", ""])
            code.clear()

    for line in _dedent(lines):
        if code and line.strip():
            code.append(line.rstrip())
        elif line.lstrip().startswith(">>>"):
            flush_prose()
            code.append(line.rstrip())
        elif not line.strip():
            flush_code()
            prose.append("")
        else:
            prose.append(line)
    flush_code()
    flush_prose()
    return md


FIELD = re.compile(r"^:(param|parameter|arg|key|keyword)\s+(?:\S+\s+)?(\w+)\s*:\s*(.*)$")
VERSION = re.compile(r"^\.\. (versionadded|versionchanged|deprecated)::\s*(\S+)\s*$")


def _fields(head: List[str]) -> Tuple[List[str], List[Tuple[str, str]]]:
    """Sphinx ``:param name: text`` fields out of the description: (the rest, the fields)."""
    rest: List[str] = []
    fields: List[Tuple[str, List[str]]] = []
    for line in head:
        m = FIELD.match(line)
        if m:
            fields.append((m.group(2), [m.group(3).strip()]))
        elif fields and line.startswith((" ", "\t")) and line.strip():
            fields[-1][1].append(line.strip())
        elif fields and not line.strip():
            continue
        else:
            rest.append(line)
    return rest, [(n, " ".join(d)) for n, d in fields]


def render_doc(doc: Optional[str], ctx: Context, insert: Optional[List[str]] = None) -> List[str]:
    """A docstring as Markdown lines; ``insert`` goes between its description and its sections (a
    class's constructor docstring before the class's examples)."""
    if not doc:
        return list(insert or [])
    head, sections = _sections(inspect.cleandoc(doc))
    head, fields = _fields(head)
    md: List[str] = []
    versions = []
    text = []
    for line in head:
        m = VERSION.match(line.strip())
        if m:
            versions.append(m.groups())
        else:
            text.append(line)
    for p in _paragraphs(text):
        md += [inline(p, ctx), ""]
    words = {"versionadded": "Added in", "versionchanged": "Changed in", "deprecated": "Deprecated in"}
    for kind, version in versions:
        md += [f"*{words[kind]} version {version}.*", ""]
    if fields:
        md += ["**Parameters**", "", *_render_params(fields, ctx), ""]
    md += insert or []
    for title, lines in sections:
        if title in ("Parameters", "Other Parameters", "Attributes"):
            md += [f"**{title}**", "", *_render_params(_entries(lines), ctx), ""]
        elif title in ("Returns", "Yields", "Raises", "Warns"):
            md += [f"**{title}**", "", *_render_returns(_entries(lines), ctx), ""]
        elif title == "Examples":
            md += ["**Examples**", "", *_render_examples(lines, ctx)]
        else:
            md += [f"**{title}**", ""]
            md += [x for p in _paragraphs(_dedent(lines)) for x in (inline(p, ctx), "")]
    return md


def summary(doc: Optional[str], ctx: Context) -> str:
    """The first sentence of a docstring, on one line (for the index tables)."""
    if not doc:
        return ""
    first = _paragraphs(inspect.cleandoc(doc).splitlines())[0]
    first = " ".join(first.split())
    m = re.search(r"(?<!e\.g)(?<!i\.e)\.\s", first)
    if m and m.start() < len(first) - 1:
        first = first[: m.start() + 1]
    return inline(first, ctx).replace("|", "\\|")


# --------------------------------------------------------------------------------------------- values


def constant_comment(module: Any, name: str) -> Optional[str]:
    """The ``#:`` comment lines right above ``name = ...`` in the module's source."""
    try:
        source = inspect.getsource(module).splitlines()
    except (OSError, TypeError):
        return None
    for i, line in enumerate(source):
        if re.match(rf"^{re.escape(name)}\s*(:[^=]*)?=", line):
            comments = []
            j = i - 1
            while j >= 0 and source[j].startswith("#:"):
                comments.insert(0, source[j][2:].strip())
                j -= 1
            return " ".join(comments) or None
    return None


def alias_definitions(spec: Tuple[Tuple[str, Tuple[str, ...]], ...]) -> List[Tuple[str, str]]:
    """(name, the right-hand side as written in the source) of type aliases, by defining module."""
    out = []
    for modname, names in spec:
        source = inspect.getsource(importlib.import_module(modname)).splitlines()
        for name in names:
            for line in source:
                m = re.match(rf"^{re.escape(name)}\s*=\s*(.+)$", line)
                if m:
                    out.append((name, re.sub(r"\b_dt\.", "datetime.", m.group(1).strip())))
                    break
            else:
                raise LookupError(f"no alias {name} in {modname}")
    return out


# -------------------------------------------------------------------------------------------- the page


def _entry_kind(obj: Any) -> str:
    if inspect.isclass(obj):
        return "exception" if issubclass(obj, BaseException) else "class"
    if callable(obj):
        return "function"
    return "constant"


def collect() -> List[Tuple[Any, List[Tuple[str, Any]]]]:
    """(module, [(name, object)]) for each documented module."""
    out = []
    for modname in MODULES:
        module = importlib.import_module(modname)
        out.append((module, [(n, getattr(module, n)) for n in public_names(module)]))
    return out


def all_anchors(modules: List[Tuple[Any, List[Tuple[str, Any]]]]) -> Dict[str, str]:
    anchors: Dict[str, str] = {}
    for module, items in modules:
        anchors[module.__name__] = anchor(module.__name__)
        for name, obj in items:
            q = f"{module.__name__}.{name}"
            anchors[q] = anchor(q)
            if inspect.isclass(obj):
                for member, _, _ in class_members(obj):
                    anchors[f"{q}.{member}"] = anchor(f"{q}.{member}")
    # a class documented under ecmsketch is found under its defining module's name too
    for module, items in modules:
        for name, obj in items:
            home = getattr(obj, "__module__", None)
            if inspect.isclass(obj) and home and home != module.__name__:
                for key, value in list(anchors.items()):
                    prefix = f"{module.__name__}.{name}"
                    if key == prefix or key.startswith(prefix + "."):
                        anchors.setdefault(f"{home}.{name}{key[len(prefix):]}", value)
                anchors.setdefault(f"{home.rsplit('.', 1)[0]}.{name}", anchors[f"{module.__name__}.{name}"])
    return anchors


def _code(text: str) -> List[str]:
    return ["```python", text, "```", ""]


def render_member(qual: str, name: str, attr: Any, cls: type, ctx: Context) -> List[str]:
    md = [f'<a id="{anchor(qual)}"></a>', "", f"#### `{cls.__name__}.{name}`", ""]
    if isinstance(attr, property):
        sig = signature_of(attr.fget) if attr.fget else None
        ret = "" if sig is None or sig.return_annotation is sig.empty else ": " + _annotation(sig.return_annotation)
        md += _code(f"property {name}{ret}")
        return md + render_doc(inspect.getdoc(attr), ctx)
    bound = getattr(cls, name)  # classmethods bound to the class, plain functions as they are
    sig = signature_of(bound)
    if sig is not None and inspect.isfunction(attr):
        params = list(sig.parameters.values())[1:]  # self
        sig = sig.replace(parameters=params)
    prefix = {classmethod: "classmethod ", staticmethod: "staticmethod "}.get(type(attr), "")
    if sig is not None:
        text = format_signature(name, sig, prefix)
        # a private TypeVar of the defining module (``-> _S`` of a classmethod) is this class
        fn = getattr(attr, "__func__", attr)
        for var in set(re.findall(r"\b_[A-Za-z]\w*\b", text)):
            if isinstance(getattr(fn, "__globals__", {}).get(var), TypeVar):
                text = re.sub(rf"\b{var}\b", cls.__name__, text)
        md += _code(text)
    return md + render_doc(inspect.getdoc(bound), ctx)


def render_class(qual: str, cls: type, ctx: Context) -> List[str]:
    kind = _entry_kind(cls)
    md: List[str] = []
    init = cls.__dict__.get("__init__")
    own_init = (dataclasses.is_dataclass(cls)
                or any("__init__" in vars(c) for c in cls.__mro__ if _defined_in_package(c)))
    sig = signature_of(cls) if own_init else None
    bases = [b for b in cls.__bases__ if b is not object and not b.__name__.startswith("_")]
    if sig is not None:
        md += _code(format_signature(cls.__name__, sig.replace(return_annotation=sig.empty), "class "))
    else:
        md += _code(f"class {cls.__name__}({', '.join(b.__name__ for b in bases)})")
    if bases:
        links = []
        for b in bases:
            target = ctx.resolve(f"{b.__module__}.{b.__name__}") or ctx.resolve(b.__name__)
            links.append(f"[`{b.__name__}`](#{target})" if target else f"`{b.__name__}`")
        md += [f"{kind.capitalize()} deriving from {', '.join(links)}.", ""]
    md += render_doc(cls.__doc__ and inspect.getdoc(cls), ctx,
                     insert=render_doc(init.__doc__, ctx) if init is not None else None)
    if dataclasses.is_dataclass(cls):
        fields = [(f.name, f.type if isinstance(f.type, str) else _annotation(f.type)) for f in dataclasses.fields(cls)]
        md += ["**Fields**", "", *[f"- `{n}` ({t})" for n, t in fields], ""]
    members = class_members(cls)
    if members:
        md += ["**Members**: " + ", ".join(f"[`{n}`](#{anchor(qual + '.' + n)})" for n, _, _ in members), ""]
        for name, attr, _ in members:
            md += render_member(f"{qual}.{name}", name, attr, cls, ctx)
    return md


def render_item(module: Any, name: str, obj: Any, anchors: Dict[str, str]) -> List[str]:
    qual = f"{module.__name__}.{name}"
    kind = _entry_kind(obj)
    md = [f'<a id="{anchor(qual)}"></a>', "", f"### `{qual}`", ""]
    if kind in ("class", "exception"):
        return md + render_class(qual, obj, Context(anchors, module.__name__, name))
    ctx = Context(anchors, module.__name__)
    if kind == "function":
        sig = signature_of(obj)
        md += _code(format_signature(name, sig) if sig is not None else f"{name}(...)")
        return md + render_doc(inspect.getdoc(obj), ctx)
    md += _code(f"{name} = {_default(obj)}")
    comment = constant_comment(module, name)
    return md + ([inline(comment, ctx), ""] if comment else [])


def render() -> str:
    """The whole page."""
    src = os.path.join(ROOT, "python")
    if src not in sys.path:
        sys.path.insert(0, src)
    modules = collect()
    anchors = all_anchors(modules)
    md = [HEADER, "| module | what |", "|---|---|"]
    for module, _ in modules:
        md.append(f"| [`{module.__name__}`](#{anchor(module.__name__)}) | "
                  f"{summary(module.__doc__, Context(anchors, module.__name__))} |")
    md.append("")
    for module, items in modules:
        ctx = Context(anchors, module.__name__)
        md += [f'<a id="{anchor(module.__name__)}"></a>', "", f"## `{module.__name__}`", ""]
        md += render_doc(module.__doc__, ctx)
        md += ["| name | kind | summary |", "|---|---|---|"]
        for name, obj in items:
            q = f"{module.__name__}.{name}"
            doc = constant_comment(module, name) if _entry_kind(obj) == "constant" else inspect.getdoc(obj)
            md.append(f"| [`{name}`](#{anchor(q)}) | {_entry_kind(obj)} | {summary(doc, ctx)} |")
        md.append("")
        aliases = ALIASES.get(module.__name__)
        if aliases:
            md += ["Types in the signatures below:", "", "```python"]
            md += [f"{n} = {d}" for n, d in alias_definitions(aliases)]
            md += ["```", ""]
        for name, obj in items:
            md += render_item(module, name, obj, anchors)
    text = "\n".join(md)
    text = re.sub(r"\n{3,}", "\n\n", text).rstrip() + "\n"
    return text


def main() -> None:
    path = os.path.join(ROOT, OUTPUT)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    text = render()
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    print(f"wrote {OUTPUT} ({len(text.splitlines())} lines)")


if __name__ == "__main__":
    main()
