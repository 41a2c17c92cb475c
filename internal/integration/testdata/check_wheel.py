"""Check a wheel the way PEP 427 describes it, independently of the Go code that wrote it.

usage: python3 check_wheel.py WHEEL

Exits non-zero with a message when RECORD does not list every member exactly once with its
sha256 (urlsafe base64, no padding) and size, or WHEEL's tag or purelib flag do not match
the file name.
"""

import base64
import csv
import hashlib
import io
import os
import sys
import zipfile


def fail(msg):
    sys.exit(f"{sys.argv[1]}: {msg}")


def main():
    path = sys.argv[1]
    name, version, py, abi, platform = os.path.basename(path)[: -len(".whl")].split("-")
    info = f"{name}-{version}.dist-info/"
    with zipfile.ZipFile(path) as z:
        members = [n for n in z.namelist() if not n.endswith("/")]
        if info + "RECORD" not in members:
            fail(f"no {info}RECORD")
        text = z.read(info + "RECORD").decode("utf-8")
        listed = {}
        for row in csv.reader(io.StringIO(text)):
            if len(row) != 3:
                fail(f"RECORD row {row!r}: want path,hash,size")
            if row[0] in listed:
                fail(f"RECORD lists {row[0]} twice")
            listed[row[0]] = row[1:]
        for member in members:
            if member not in listed:
                fail(f"RECORD does not list {member}")
            digest, size = listed.pop(member)
            if member == info + "RECORD":
                if digest or size:
                    fail("RECORD gives itself a hash or size")
                continue
            data = z.read(member)
            want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            if digest != want:
                fail(f"RECORD hash of {member} is {digest}; the file's is {want}")
            if size != str(len(data)):
                fail(f"RECORD size of {member} is {size}; the file has {len(data)} bytes")
        if listed:
            fail(f"RECORD lists files the wheel lacks: {sorted(listed)}")
        wheel = z.read(info + "WHEEL").decode("utf-8").splitlines()
        if f"Tag: {py}-{abi}-{platform}" not in wheel:
            fail(f"WHEEL has no Tag: {py}-{abi}-{platform} line: {wheel}")
        if "Root-Is-Purelib: false" not in wheel:
            fail("WHEEL does not say Root-Is-Purelib: false (the payload is a platform binary)")
        metadata = z.read(info + "METADATA").decode("utf-8").splitlines()
        for want in (f"Name: {name}", f"Version: {version}"):
            if want not in metadata:
                fail(f"METADATA has no {want!r} line")


main()
