# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""An embedded HBase secured with Kerberos, for the tests: `LocalHBase.start(additions=Kerberos(...).security())`.

HBase then authenticates clients with Kerberos and checks their rights (SASL, AccessController,
TokenProvider for delegation tokens); the KDC is the tests' own (kerberos_servers.py)."""

from collections.abc import Sequence
from dataclasses import dataclass

from pyspark_hbase.local import Additions

ACCESS_CONTROLLER = "org.apache.hadoop.hbase.security.access.AccessController"
TOKEN_PROVIDER = "org.apache.hadoop.hbase.security.token.TokenProvider"


@dataclass(frozen=True)
class Kerberos:
    """How the embedded HBase runs secured: the KDC's krb5.conf and HBase's own service login.

    The short name of `principal` (before any / or @) is HBase's superuser.
    """

    krb5_conf: str
    principal: str
    keytab: str

    @property
    def superuser(self) -> str:
        return self.principal.split("/")[0].split("@")[0]

    def site_settings(self) -> dict[str, str]:
        return {
            "hbase.security.authentication": "kerberos",
            "hbase.security.authorization": "true",
            # Clients need these two as well: the principal they expect the servers to have.
            "hbase.master.kerberos.principal": self.principal,
            "hbase.regionserver.kerberos.principal": self.principal,
            "hbase.master.keytab.file": self.keytab,
            "hbase.regionserver.keytab.file": self.keytab,
            "hbase.superuser": self.superuser,
            "hbase.coprocessor.master.classes": ACCESS_CONTROLLER,
            "hbase.coprocessor.regionserver.classes": ACCESS_CONTROLLER,
            "hbase.coprocessor.region.classes": f"{TOKEN_PROVIDER},{ACCESS_CONTROLLER}",
        }

    @staticmethod
    def core_settings() -> dict[str, str]:
        return {"hadoop.security.authentication": "kerberos", "hadoop.security.authorization": "true"}

    def security(self, proxy_users: Sequence[str] = ()) -> Additions:
        """What `LocalHBase.start(additions=...)` takes to run secured: the site files, the KDC's krb5.conf for every
        JVM, and for our client JVMs (the readiness probe, the AccessTool) the login as HBase's
        superuser from the service keytab.

        `proxy_users` are the short names of servers that may act for any user from anywhere
        (HBase's proxy-user settings), as a Thrift server with doAs does."""
        proxies = {f"hadoop.proxyuser.{user}.{what}": "*" for user in proxy_users for what in ("hosts", "groups")}
        return Additions(
            hbase_site={**self.site_settings(), **proxies},
            core_site=self.core_settings(),
            jvm_flags=(f"-Djava.security.krb5.conf={self.krb5_conf}",),
            tool_flags=(
                f"-Dspark.hbase.local.login.principal={self.principal}",
                f"-Dspark.hbase.local.login.keytab={self.keytab}",
            ),
        )
