"""Python clients nobody here wrote, against FFFS's WebHDFS gateway: fsspec's webhdfs filesystem, HdfsCLI
(the `hdfs` package) and pandas reading a Parquet table through fsspec -- each lists, reads, writes and reads a
past state. Run by io.fffs.minicluster.http.PythonClientsTest against a MiniFffsCluster:

    python webhdfs_clients.py HOST PORT USER

Prints one line per check ("ok <name>" or "FAILED <name>: <why>") and, last, "N passed, N failed".
"""
import os
import sys
import traceback

import fsspec
import hdfs
import pandas as pd
import requests


def latest_marker(base, user, path):
    """The marker of the newest version of path, from FFFS's GETVERSIONS."""
    answer = requests.get(f"{base}/webhdfs/v1{path}", params={"op": "GETVERSIONS", "user.name": user}, timeout=60)
    answer.raise_for_status()
    return answer.json()["FileVersions"]["FileVersion"][-1]["marker"]


def check_fsspec(host, port, user, base):
    fs = fsspec.filesystem("webhdfs", host=host, port=port, user=user)
    fs.mkdir("/py/fsspec")
    with fs.open("/py/fsspec/log.txt", "wb") as f:
        f.write(b"reading 1\n")
    marker = latest_marker(base, user, "/py/fsspec/log.txt")
    with fs.open("/py/fsspec/log.txt", "wb") as f:
        f.write(b"reading 1\nreading 2\n")
    assert fs.ls("/py/fsspec", detail=False) == ["/py/fsspec/log.txt"], fs.ls("/py/fsspec", detail=False)
    assert fs.cat("/py/fsspec/log.txt") == b"reading 1\nreading 2\n", fs.cat("/py/fsspec/log.txt")
    assert fs.info("/py/fsspec/log.txt")["size"] == 20
    past = "/py/fsspec/log.txt" + marker
    assert fs.cat(past) == b"reading 1\n", fs.cat(past)
    assert fs.info(past)["size"] == 10
    with fs.open(past, "rb") as f:
        f.seek(8)
        assert f.read() == b"1\n"
    try:
        fs.pipe(past, b"rewrite the past")
    except (PermissionError, RuntimeError, OSError) as e:
        assert "READ_ONLY_PAST" in str(e), e
    else:
        raise AssertionError("a write to the past was accepted")


def check_hdfscli(host, port, user, base):
    client = hdfs.InsecureClient(f"http://{host}:{port}", user=user)
    client.makedirs("/py/hdfscli")
    client.write("/py/hdfscli/data.csv", data=b"a,b\n1,2\n", overwrite=True)
    marker = latest_marker(base, user, "/py/hdfscli/data.csv")
    client.write("/py/hdfscli/data.csv", data=b"3,4\n", append=True)
    assert client.list("/py/hdfscli") == ["data.csv"], client.list("/py/hdfscli")
    with client.read("/py/hdfscli/data.csv") as reader:
        assert reader.read() == b"a,b\n1,2\n3,4\n"
    with client.read("/py/hdfscli/data.csv" + marker) as reader:
        assert reader.read() == b"a,b\n1,2\n"
    assert client.status("/py/hdfscli/data.csv" + marker)["length"] == 8
    with client.read("/py/hdfscli/data.csv", offset=4, length=3) as reader:
        assert reader.read() == b"1,2"
    assert client.status("/py/hdfscli/missing", strict=False) is None
    try:
        client.write("/py/hdfscli/data.csv" + marker, data=b"x", overwrite=True)
    except hdfs.HdfsError as e:
        assert "READ_ONLY_PAST" in str(e), e
    else:
        raise AssertionError("a write to the past was accepted")


def check_pandas(host, port, user, base):
    options = {"user": user}
    table = f"webhdfs://{host}:{port}/py/table"
    first = pd.DataFrame({"sensor": ["a", "b"], "value": [1.0, 2.0]})
    first.to_parquet(f"{table}/part-0.parquet", storage_options=options, index=False)
    # The table as it was once part-0 was complete (the directory's own last change was part-0's creation).
    marker = latest_marker(base, user, "/py/table/part-0.parquet")
    second = pd.DataFrame({"sensor": ["c"], "value": [3.0]})
    second.to_parquet(f"{table}/part-1.parquet", storage_options=options, index=False)
    now = pd.read_parquet(table, storage_options=options).sort_values("sensor").reset_index(drop=True)
    assert list(now["sensor"]) == ["a", "b", "c"], now
    then = pd.read_parquet(table + marker, storage_options=options).sort_values("sensor").reset_index(drop=True)
    pd.testing.assert_frame_equal(then, first)


def main():
    host, port, user = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    base = f"http://{host}:{port}"
    passed = failed = 0
    for name, check in [("fsspec", check_fsspec), ("hdfscli", check_hdfscli), ("pandas", check_pandas)]:
        try:
            check(host, port, user, base)
            print(f"ok {name}", flush=True)
            passed += 1
        except Exception:
            print(f"FAILED {name}: {traceback.format_exc()}", flush=True)
            failed += 1
    print(f"python: {passed} passed, {failed} failed", flush=True)
    # Leave without the interpreter's teardown: a native library's thread (pyarrow's, behind pandas) can abort it
    # ("terminate called without an active exception", exit 134) after every check has passed.
    os._exit(1 if failed else 0)


if __name__ == "__main__":
    main()
