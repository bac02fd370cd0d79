#!/usr/bin/env python3
# Turns a text file into a C header holding it as one string constant:
#   embed-page.py INPUT OUTPUT NAME
import sys

src, dst, name = sys.argv[1:4]
with open(src, encoding="utf-8") as f:
    text = f.read()
out = ["/* generated from %s by embed-page.py: do not edit */" % src.split("/")[-1],
       "static const char %s[] =" % name]
for line in text.splitlines(True):
    esc = line.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    # no trigraphs, no "??" surprises
    esc = esc.replace("??", "?\\?")
    out.append('  "%s"' % esc)
out[-1] += ";"
with open(dst, "w", encoding="utf-8") as f:
    f.write("\n".join(out) + "\n")
