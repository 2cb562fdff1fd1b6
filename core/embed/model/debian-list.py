#!/usr/bin/env python3
"""debian-list.py SET DEBDIR: how debian.txt was made.

For each Debian package file (.deb) in DEBDIR, print the line of
debian.txt, "SET PACKAGE=VERSION LICENCES", when every licence its DEP-5
copyright file gives to upstream files (stanzas not only of debian/*)
is permissive or weak copyleft (an "or" choice needs one such
alternative); packages under another licence (GPL, AGPL, CC-BY-SA) or
whose copyright file is not in DEP-5 form are left out.

The packages were those of Debian 12 (bookworm) named golang-*-dev
(SET go), python3-* (py) and node-* (node), of Architecture all, an
Installed-Size below 20 MB, and not already a source of the model
(sources.sh's Python packages; the npm packages it fetches), fetched
with apt-get download.
"""
import io
import os
import re
import subprocess
import sys
import tarfile

PERMISSIVE = re.compile(
    r"^(go$|go-|bsd|expat|mit|apache|isc|psf|python|zlib|cc0|unlicense|public[- ]domain|"
    r"mpl|x11|bsl|boost|0bsd|wtfpl|lgpl|artistic|ofl|curl|ncsa|postgresql|openssl|"
    r"cc-by(?!-sa)|hpnd|sil|json|w3c|zope|matplotlib|cnri|historical|ruby|lpl|edl|epl|"
    r"dwtfyw|unicode|upl|blueoak|ssleay)", re.I)


def copyright_text(deb):
    tar = subprocess.run(["dpkg-deb", "--fsys-tarfile", deb], capture_output=True, check=True).stdout
    t = tarfile.open(fileobj=io.BytesIO(tar))
    for m in t.getmembers():
        if m.isfile() and "/doc/" in m.name and m.name.endswith("/copyright"):
            return t.extractfile(m).read().decode("utf-8", "replace")
    return ""


def upstream_licences(text):
    lics = set()
    for para in re.split(r"\n\s*\n", text):
        files = re.search(r"^Files:\s*(.*(?:\n\s+.*)*)", para, re.M)
        lic = re.search(r"^License:\s*(.+)$", para, re.M)
        if files and lic and not all(f.startswith("debian/") for f in files.group(1).split()):
            lics.add(lic.group(1).strip())
    return lics


def allowed(lic):
    for alt in re.split(r"\s+or\s+|\s*\|\s*", lic, flags=re.I):
        parts = [p.strip("() ") for p in re.split(r"\s+and\s+|,\s*", alt, flags=re.I)]
        if all(PERMISSIVE.match(p) for p in parts if p):
            return True
    return False


def main(kind, debdir):
    for name in sorted(os.listdir(debdir)):
        if not name.endswith(".deb"):
            continue
        pkg, version = name[:-len(".deb")].split("_")[:2]
        lics = upstream_licences(copyright_text(os.path.join(debdir, name)))
        if lics and all(allowed(l) for l in lics):
            print(kind, f"{pkg}={version.replace('%3a', ':')}", ";".join(sorted(lics)).replace(" ", "_"))


if __name__ == "__main__":
    main(*sys.argv[1:3])
