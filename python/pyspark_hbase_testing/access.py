# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""HBase rights granted as HBase's superuser, for the tests of a Kerberos-secured embedded HBase."""

import subprocess

from pyspark_hbase.local import LocalHBase, LocalHBaseError

ACCESS_TOOL_CLASS = "org.apache.spark.sql.hbase.local.AccessTool"


def grant(hbase: LocalHBase, user: str, scope: str, actions: str, timeout: float = 120) -> None:
    """Grants `user` HBase rights, as HBase's superuser (meant for a `kerberos` run).

    `scope` is "@namespace" (created if missing) or a table; `actions` are letters of RWXCA.
    """
    java, classpath, _ = hbase._runtime()
    done = subprocess.run(
        [*hbase._tool_jvm(java, classpath, "access-tool.log"), ACCESS_TOOL_CLASS, "grant", user, scope, actions],
        cwd=hbase.data_dir,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        raise LocalHBaseError(f"granting {user} {actions} on {scope} failed:\n{done.stdout[-3000:]}")
