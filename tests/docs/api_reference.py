#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The API reference (docs/api, built by gi-docgen with --fatal-warnings)
covers GstAvhw-1.0.gir: every class, record, enum, constant, function,
method, constructor and virtual function of the GIR has its page, and the
overview page is there. argv: the GIR, the reference's folder.
"""
import os
import sys
import xml.etree.ElementTree as ET

CORE = "{http://www.gtk.org/introspection/core/1.0}"
GLIB = "{http://www.gtk.org/introspection/glib/1.0}"

# gi-docgen's page of each kind of member of a type: KIND.TYPE.NAME.html
MEMBERS = {
    "constructor": "ctor",
    "method": "method",
    "function": "type_func",
    "virtual-method": "vfunc",
    "property": "property",
    "glib:signal": "signal",
}


def tag(el):
    return el.tag.replace(CORE, "").replace(GLIB, "glib:")


def expected_pages(gir):
    ns = ET.parse(gir).getroot().find(CORE + "namespace")
    pages = ["index.html", "overview.html"]
    for el in ns:
        kind, name = tag(el), el.get("name")
        if kind == "function":
            if el.get("moved-to"):
                continue  # the same symbol, on its type's page
            pages.append(f"func.{name}.html")
        elif kind == "constant":
            pages.append(f"const.{name}.html")
        elif kind == "enumeration":
            error = el.get(GLIB + "error-domain")
            pages.append(f"{'error' if error else 'enum'}.{name}.html")
        elif kind == "bitfield":
            pages.append(f"flags.{name}.html")
        elif kind == "class":
            pages.append(f"class.{name}.html")
        elif kind == "record":
            if el.get(GLIB + "is-gtype-struct-for"):
                continue  # a class structure: on its class's page
            pages.append(f"struct.{name}.html")
        else:
            continue
        for member in el:
            prefix = MEMBERS.get(tag(member))
            if prefix:
                pages.append(f"{prefix}.{name}.{member.get('name')}.html")
    return pages


def main():
    gir, ref = sys.argv[1:3]
    pages = expected_pages(gir)
    missing = [p for p in pages if not os.path.isfile(os.path.join(ref, p))]
    for p in missing:
        print(f"FAIL: {ref} has no {p}")
    print(f"{len(pages) - len(missing)}/{len(pages)} pages of "
          f"{os.path.basename(gir)} in the reference")
    return 1 if missing or len(pages) < 50 else 0


if __name__ == "__main__":
    sys.exit(main())
