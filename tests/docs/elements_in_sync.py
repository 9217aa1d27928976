#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""docs/elements.md against the elements this build registers.

For every element feature of our plugins (plugins loaded from the build
tree whose feature name starts with `avhw`: the elements plugin and the
per-codec `avhw<backend><codec>dec` features backend plugins register):

- docs/elements.md has a `## <name>` section; a heading with placeholders
  (`## avhw&lt;backend&gt;&lt;codec&gt;dec`) documents that whole family;
- every property that our own classes define (the pspec's owner type is a
  GstAvhw* type: the element class or our base classes) has a row in that
  section's property table, or in the shared table above the first section,
  with its default value as `gst-inspect-1.0 <element>` prints it.

And the other way: a documented property the element no longer has, and a
section for an element that no longer exists, are failures too. README.md's
`Elements:` paragraph must name every element of the avhw plugin, and no
other.
Properties of GStreamer's base classes (`qos`, `max-errors`...) may be
documented; they must exist, their defaults are GStreamer's business.
"""
import html
import os
import re
import subprocess
import sys

from docs_common import Gst, SOURCE_ROOT, backend_names, our_plugins, \
    type_name

# AVHW_ELEMENTS_DOC: another copy of the file (to try the test on an edit).
DOC = os.environ.get("AVHW_ELEMENTS_DOC",
                     os.path.join(SOURCE_ROOT, "docs", "elements.md"))
# What gst-inspect-1.0 prints for "no value", and what the docs may write.
NULL_FORMS = {"null", "NULL", "empty", "none", "(none)", '""', "-", "—"}


# ---------------------------------------------------------------- the doc --

class Section:
    def __init__(self, title, line):
        self.title = title          # heading text, unescaped
        self.line = line
        self.name = None            # element name, or None: not an element
        self.pattern = None         # regex for a family heading
        self.props = {}             # property -> (default cell, line)


def split_row(row):
    cells = row.strip().strip("|").split("|")
    return [c.strip() for c in cells]


def parse_doc(path, backends):
    """(shared props, [Section]) from the Markdown file."""
    shared = Section("(shared table)", 1)
    sections = []
    cur = shared
    header = None
    in_fence = False
    with open(path, encoding="utf-8") as f:
        for no, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if line.lstrip().startswith("```"):
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            m = re.match(r"^##\s+(.*)$", line)
            if m:
                cur = Section(html.unescape(m.group(1)).strip(), no)
                first = cur.title.split()[0].strip("`") if cur.title else ""
                if first.startswith("avhw"):
                    if "<" in first:
                        cur.pattern = family_regex(first, backends)
                    else:
                        cur.name = first
                sections.append(cur)
                header = None
                continue
            if not line.lstrip().startswith("|"):
                header = None
                continue
            cells = split_row(line)
            if header is None:
                low = [c.lower() for c in cells]
                if "property" in low and "default" in low:
                    header = (low.index("property"), low.index("default"))
                continue
            if all(re.fullmatch(r":?-+:?", c) for c in cells if c):
                continue
            pi, di = header
            if pi >= len(cells):
                continue
            names = re.findall(r"`([a-z][a-z0-9-]*)`", cells[pi])
            default = cells[di] if di < len(cells) else ""
            for n in names:
                cur.props[n] = (default, no)
    return shared, sections


def family_regex(name, backends):
    """`avhw<backend><codec>dec` -> a regex; `<backend>` matches a backend
    this build registers (group 'backend'), any other `<...>` a word."""
    rx = ""
    for part in re.split(r"(<[^>]*>)", name):
        if part == "<backend>":
            rx += "(?P<backend>" + "|".join(map(re.escape, backends)) + ")"
        elif part.startswith("<"):
            rx += "[a-z0-9]+"
        else:
            rx += re.escape(part)
    return re.compile("^" + rx + "$")


def readme_elements(path):
    """The `avhw...` names in README.md's `Elements:` paragraph (None when
    it has none), and its line number."""
    para, start = [], None
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            if start is None and line.startswith("Elements:"):
                start = no
            if start is not None:
                if not line.strip():
                    break
                para.append(line)
    if start is None:
        return None, None
    return set(re.findall(r"`(avhw[a-z0-9]*)`", "".join(para))), start


def doc_value(cell):
    """The value a default cell states: its first `code` span, else the
    cell's text."""
    m = re.search(r"`([^`]*)`", cell)
    return (m.group(1) if m else cell).strip()


# --------------------------------------------------------------- the code --

def inspect_defaults(element):
    """{property: default text} as `gst-inspect-1.0 element` prints it
    (None where it prints no default, e.g. object properties)."""
    r = subprocess.run(["gst-inspect-1.0", element], capture_output=True,
                       text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"gst-inspect-1.0 {element}: {r.stderr.strip()}")
    out = {}
    cur = None
    in_props = False
    for line in r.stdout.splitlines():
        if line.startswith("Element Properties:"):
            in_props = True
            continue
        if in_props and line and not line.startswith(" "):
            in_props = False
        if not in_props:
            continue
        m = re.match(r"^  ([a-z][a-z0-9-]*)\s*:", line)
        if m:
            cur = m.group(1)
            out[cur] = None
            continue
        m = re.search(r"Default: (.*?)\s*$", line)
        if cur and m and out[cur] is None:
            out[cur] = m.group(1)
    return out


def accepted_forms(inspect_default):
    """What the docs may write for a default gst-inspect-1.0 prints."""
    d = inspect_default
    if d is None or d == "null":
        return NULL_FORMS
    m = re.fullmatch(r'(0x[0-9a-f]+|-?\d+), "(.*)"', d)     # enum, flags
    if m:
        num = m.group(1)
        forms = {num, m.group(2)}
        if num.startswith("0x"):
            forms.add(str(int(num, 16)))
        return forms
    m = re.fullmatch(r'"(.*)"', d)                          # string
    if m:
        return {m.group(1), d}
    return {d, d.lower()}


def our_properties(element_factory):
    """{name: pspec} of every property and {name: pspec} of those our own
    types define."""
    factory = element_factory.load()
    el = factory.create(None)
    if el is None:
        raise RuntimeError(f"cannot create {factory.get_name()}")
    every = {p.name: p for p in el.list_properties()}
    ours = {n: p for n, p in every.items()
            if type_name(p.owner_type).startswith("GstAvhw")}
    return every, ours


# ------------------------------------------------------------------ check --

def main():
    backends = backend_names()
    shared, sections = parse_doc(DOC, backends)
    rel = os.path.relpath(DOC, SOURCE_ROOT)
    problems = []
    notes = []

    elements = []   # (name, factory, plugin name)
    for plugin, feats in our_plugins():
        for f in feats:
            if isinstance(f, Gst.ElementFactory) and \
                    f.get_name().startswith("avhw"):
                elements.append((f.get_name(), f, plugin.get_name()))
    if not any(p == "avhw" for _, _, p in elements):
        print("ERROR: the avhw plugin is not in the registry (plugin path?)")
        return 1
    elements.sort()

    exact = {s.name: s for s in sections if s.name}
    families = [s for s in sections if s.pattern]
    seen_sections = set()
    plugin_elements = []    # elements with an exact section target

    for name, factory, plugin in elements:
        sec, backend = exact.get(name), None
        if sec is None:
            for fam in families:
                m = fam.pattern.match(name)
                if m:
                    sec = fam
                    backend = m.groupdict().get("backend")
                    break
        if sec is None:
            problems.append(f"MISSING section: `## {name}` (plugin {plugin}) "
                            f"in {rel}")
            continue
        seen_sections.add(id(sec))
        if sec.name:
            plugin_elements.append(name)
        every, ours = our_properties(factory)
        defaults = inspect_defaults(name)
        checked = 0
        for prop in sorted(ours):
            if prop in sec.props:
                cell, line = sec.props[prop]
                where = f"{rel}:{line}"
            elif prop in shared.props:
                cell, line = shared.props[prop]
                where = f"{rel}:{line} (shared table)"
            else:
                problems.append(f"MISSING {name}.{prop}: no row in "
                                f"`## {sec.title}` nor in the shared table "
                                f"(gst-inspect-1.0 default: "
                                f"{defaults.get(prop) or '(none)'})")
                continue
            value = doc_value(cell)
            if backend:
                value = value.replace("<backend>", backend)
            forms = accepted_forms(defaults.get(prop))
            if value not in forms:
                problems.append(
                    f"DIFFERENT {name}.{prop}: {where} says default "
                    f"{cell!r}, gst-inspect-1.0 says "
                    f"{defaults.get(prop) or '(no default)'}")
            checked += 1
        for prop, (cell, line) in sorted(sec.props.items()):
            if prop not in every:
                problems.append(f"STALE {name}.{prop}: documented at "
                                f"{rel}:{line}, the element has no such "
                                f"property")
        print(f"ok {name}: {checked} of our properties checked "
              f"(section `## {sec.title}`)")

    for prop, (cell, line) in sorted(shared.props.items()):
        lacking = [n for n, f, _ in elements if n in plugin_elements
                   and prop not in our_properties(f)[0]]
        if lacking:
            problems.append(f"STALE shared {prop}: documented at {rel}:{line} "
                            f"for all elements; {', '.join(lacking)} lack it")

    for sec in sections:
        if sec.name and id(sec) not in seen_sections:
            problems.append(f"STALE section `## {sec.title}` ({rel}:"
                            f"{sec.line}): no such element registered")
        if sec.pattern and id(sec) not in seen_sections:
            notes.append(f"note: no element of the family `## {sec.title}` "
                         f"is registered here (no hardware decoder on this "
                         f"machine); that section is checked where one is")

    readme = os.path.join(SOURCE_ROOT, "README.md")
    listed, line = readme_elements(readme)
    plugin = {n for n, _, p in elements if p == "avhw"}
    if listed is None:
        problems.append("MISSING README.md: no 'Elements:' paragraph naming "
                        "the elements")
    else:
        for n in sorted(plugin - listed):
            problems.append(f"MISSING README.md:{line}: the Elements: "
                            f"paragraph does not name `{n}`")
        for n in sorted(listed - plugin):
            problems.append(f"STALE README.md:{line}: the Elements: paragraph "
                            f"names `{n}`, no such element")

    for n in notes:
        print(n)
    for p in problems:
        print(p)
    print(f"{len(elements)} elements, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
