# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""HBase rights granted as HBase's superuser, for the tests of an embedded HBase with the AccessController on
(Kerberos-secured, or with simple authentication: `simple_access_control()`)."""

import getpass
import subprocess

from pyspark_hbase.local import Additions, LocalHBase, LocalHBaseError

from pyspark_hbase_testing.kerberos import ACCESS_CONTROLLER

ACCESS_TOOL_CLASS = "org.apache.spark.sql.hbase.local.AccessTool"


def grant(hbase: LocalHBase, user: str, scope: str, actions: str, timeout: float = 120) -> None:
    """Grants `user` HBase rights, as HBase's superuser (an HBase with the AccessController on).

    `scope` is "@namespace" (created if missing), a table, or a table's family or column
    ("table/family", "table/family/qualifier"); `actions` are letters of RWXCA.
    """
    change_rights(hbase, [("grant", user, scope, actions)], timeout)


def revoke(hbase: LocalHBase, user: str, scope: str, actions: str, timeout: float = 120) -> None:
    """Takes back rights `grant` gave, as HBase's superuser."""
    change_rights(hbase, [("revoke", user, scope, actions)], timeout)


def change_rights(hbase: LocalHBase, changes, timeout: float = 120) -> None:
    """Makes each ("grant" or "revoke", user, scope, actions) change in order, as `grant` and `revoke` do, in one JVM
    of HBase's superuser."""
    java, classpath, _ = hbase._runtime()
    done = subprocess.run(
        [*hbase._tool_jvm(java, classpath, "access-tool.log"), ACCESS_TOOL_CLASS, *(a for c in changes for a in c)],
        cwd=hbase.data_dir,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        made = sum(line.startswith("OK ") for line in done.stdout.splitlines())
        command, user, scope, actions = changes[min(made, len(changes) - 1)]
        raise LocalHBaseError(f"{command} {actions} on {scope} for {user} failed:\n{done.stdout[-3000:]}")


def simple_access_control() -> Additions:
    """What `LocalHBase.start(additions=...)` takes to check rights without Kerberos: simple
    authentication, which takes each client's user name at its word, and the AccessController.
    The user running the tests is HBase's superuser."""
    return Additions(
        hbase_site={
            "hbase.security.authentication": "simple",
            "hbase.security.authorization": "true",
            "hbase.superuser": getpass.getuser(),
            "hbase.coprocessor.master.classes": ACCESS_CONTROLLER,
            "hbase.coprocessor.regionserver.classes": ACCESS_CONTROLLER,
            "hbase.coprocessor.region.classes": ACCESS_CONTROLLER,
        }
    )
