# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Everything the benchmarks use of the pyspark_hbase package, in one place.

The package is being reorganised; when a module moves, this is the file to fix. Nothing else under benchmarks/
imports pyspark_hbase (tests/test_benchmarks_layout.py checks it).
"""

from pathlib import Path

from pyspark_hbase import _paths, enable_hbase, hbase_jars, scan_metrics
from pyspark_hbase.local import JAVA17_FLAGS, Additions, LocalHBase
from pyspark_hbase.thriftserver import ThriftServer

__all__ = [
    "Additions",
    "access_control",
    "change_rights",
    "grant",
    "kerberos_security",
    "local_kdc",
    "JAVA17_FLAGS",
    "LocalHBase",
    "ThriftServer",
    "enable_hbase",
    "hbase_classpath",
    "java_executable",
    "kill_region_server",
    "plugin_jars",
    "scan_metrics",
    "use_plugin_jar",
]


def plugin_jars():
    """The Spark plugin jar(s) of the checkout (or the one use_plugin_jar chose)."""
    return _paths.plugin_jars()


def java_executable():
    return _paths.java_executable()


def hbase_classpath():
    """The embedded HBase's classpath entries (the sbt build writes them)."""
    return hbase_jars.read_classpath()


def use_plugin_jar(path: Path):
    """Runs another build of the plugin: every session and Thrift server started after this takes it."""
    _paths.plugin_jars = lambda: [path]


def kill_region_server(hbase, number):
    """Kills a region server of the embedded HBase as a crash would (the tests' helper)."""
    from pyspark_hbase_testing.region_servers import kill_region_server as kill

    return kill(hbase, number)


def access_control():
    """The additions that start an embedded HBase checking rights with its AccessController under simple
    authentication (the tests' helper); the user running it is HBase's superuser."""
    from pyspark_hbase_testing.access import simple_access_control

    return simple_access_control()


def grant(hbase, user, scope, actions):
    """Grants `user` HBase rights on `scope` ("@namespace" or a table) as HBase's superuser (the tests' helper)."""
    from pyspark_hbase_testing.access import grant as grant_rights

    grant_rights(hbase, user, scope, actions)


def change_rights(hbase, changes):
    """Makes each ("grant" or "revoke", user, scope, actions) change as HBase's superuser, in one JVM (the tests'
    helper)."""
    from pyspark_hbase_testing.access import change_rights as change

    change(hbase, changes)


def local_kdc(work: Path, keytabs):
    """Hadoop's MiniKdc on 127.0.0.1, a keytab per name of `keytabs` ({name: [principal, ...]}); stop() ends it (the
    tests' KDC)."""
    from pyspark_hbase_testing.kerberos_servers import LocalKdc

    return LocalKdc(work, keytabs)


def kerberos_security(kdc, proxy_users):
    """The additions that start an embedded HBase authenticating with `kdc`'s Kerberos as hbase/localhost and checking
    rights, letting `proxy_users` act for others (the tests' helper)."""
    from pyspark_hbase_testing.kerberos import Kerberos

    return Kerberos(kdc.krb5_conf, kdc.principal("hbase/localhost"), kdc.keytab("hbase")).security(proxy_users)
