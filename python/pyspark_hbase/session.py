# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Wiring a Spark session to HBase: the plugin jar, our Catalyst extension and the HBase address."""

import logging
import os
from collections.abc import Sequence
from typing import Optional, Union

from pyspark_hbase import _paths
from pyspark_hbase.local import LocalHBase, LocalHBaseError

EXTENSION_CLASS = "org.apache.spark.sql.hbase.HBaseSparkSessionExtension"
CATALOG_CLASS = "org.apache.spark.sql.hbase.connector.HBaseSparkCatalog"
CATALOG_NAME = "hbase"
CATALOG_KEY = f"spark.sql.catalog.{CATALOG_NAME}"


class HBaseSessionError(RuntimeError):
    """The session cannot be made to speak HBase SQL; the message says how to fix it."""


# Settings that name an HBase: a session that already has one keeps it.
_NAMING_KEYS = ("spark.hbase.conf.dir", "spark.hbase.zookeeper.quorum")

_log = logging.getLogger("pyspark_hbase")


def hbase_settings(
    hbase_conf: Optional[dict[str, str]] = None,
    data_dir: Union[str, os.PathLike, None] = None,
    configured: Optional[dict[str, str]] = None,
) -> dict[str, str]:
    """The `spark.hbase.*` settings that reach HBase, and a log line (logger `pyspark_hbase`) saying which.

    In this order: explicit `hbase_conf` ({"hbase.zookeeper.quorum": ..., ...}); the embedded HBase of
    `data_dir`; an HBase the session's own settings already name (`configured`, and spark-defaults.conf),
    which is kept as it is; HBASE_CONF_DIR, which the plugin reads itself; else the embedded HBase of the
    default data dir, which must be running. Never the embedded one when another was named.
    """
    if hbase_conf is not None:
        settings = {_spark_key(k): str(v) for k, v in hbase_conf.items()}
        _log.info("HBase SQL uses %s (hbase_conf)", describe_hbase(settings))
        return settings
    if data_dir is None:
        named = {k: v for k, v in {**spark_defaults(), **(configured or {})}.items() if k in _NAMING_KEYS}
        if named:
            _log.info("HBase SQL uses %s, as the session's settings say", describe_hbase(named))
            return {}
        if os.environ.get("HBASE_CONF_DIR"):
            settings = {"spark.hbase.conf.dir": os.environ["HBASE_CONF_DIR"]}
            _log.info("HBase SQL uses %s (HBASE_CONF_DIR)", describe_hbase(settings))
            return settings
    local = LocalHBase(data_dir)
    try:
        conf = local.client_conf()
    except LocalHBaseError as e:
        if data_dir is not None:
            raise
        raise HBaseSessionError(
            f"no HBase was named, and the embedded one is not running ({e}). Name one with "
            'enable_hbase(builder, hbase_conf={"hbase.zookeeper.quorum": ...}), with HBASE_CONF_DIR, or with '
            "spark.hbase.conf.dir / spark.hbase.zookeeper.quorum in the session's settings; or start the embedded "
            "one with `spark-hbase local start`"
        ) from e
    settings = {_spark_key(k): v for k, v in conf.items()}
    if os.environ.get("HBASE_CONF_DIR"):
        _log.info("HBase SQL ignores HBASE_CONF_DIR=%s: data_dir was given", os.environ["HBASE_CONF_DIR"])
    _log.info("HBase SQL uses %s, the embedded HBase of %s", describe_hbase(settings), local.data_dir)
    return settings


def describe_hbase(settings: dict[str, str]) -> str:
    """Which HBase `spark.hbase.*` settings name, in words: its site files' directory, or its ZooKeeper."""
    conf_dir = settings.get("spark.hbase.conf.dir")
    quorum = settings.get("spark.hbase.zookeeper.quorum")
    port = settings.get("spark.hbase.zookeeper.property.clientPort")
    if quorum:
        return f"the HBase at ZooKeeper {quorum}" + (f":{port}" if port else "")
    return f"the HBase of {conf_dir}/hbase-site.xml"


def spark_defaults() -> dict[str, str]:
    """spark-defaults.conf as spark-submit reads it (SPARK_CONF_DIR, else the Spark home's conf/): what a session starts
    with."""
    conf_dir = os.environ.get("SPARK_CONF_DIR")
    if not conf_dir:
        try:
            # pyspark only when asked, not at import: `import pyspark_hbase` stays light for the CLI.
            from pyspark.find_spark_home import _find_spark_home

            conf_dir = os.path.join(_find_spark_home(), "conf")
        except Exception:  # no Spark home to be found: no defaults either
            return {}
    path = os.path.join(conf_dir, "spark-defaults.conf")
    if not os.path.isfile(path):
        return {}
    settings = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                key, _, value = line.partition(" ") if " " in line else line.partition("=")
                settings[key.strip()] = value.strip()
    return settings


def _spark_key(key: str) -> str:
    return key if key.startswith("spark.") else f"spark.{key}"


def spark_conf(
    hbase_conf: Optional[dict[str, str]] = None,
    data_dir: Union[str, os.PathLike, None] = None,
    configured: Optional[dict[str, str]] = None,
) -> dict[str, str]:
    """Every Spark setting HBase SQL needs: jar, extension, the `hbase` catalog and HBase address."""
    jars = ",".join(str(j) for j in _paths.plugin_jars())
    return {
        "spark.jars": jars,
        "spark.sql.extensions": EXTENSION_CLASS,
        CATALOG_KEY: CATALOG_CLASS,
        **hbase_settings(hbase_conf, data_dir, configured),
    }


def submit_args(
    hbase_conf: Optional[dict[str, str]] = None,
    data_dir: Union[str, os.PathLike, None] = None,
    driver_class_path: Sequence[str] = (),
) -> list[str]:
    """The same settings as spark-submit / spark-sql / pyspark flags.

    The jar goes on the driver's class path as well as in --jars: Spark's Thrift server runs Hive
    2.3's session code, which closes the class loader holding the --jars when a JDBC session
    closes (HIVE-22989), so the plugin's classes must come from the JVM's own class path there.
    --jars still ships the jar to the executors. `driver_class_path` adds jars the driver alone
    needs (spark-submit keeps only the last --driver-class-path).
    """
    conf = spark_conf(hbase_conf, data_dir)
    jars = conf.pop("spark.jars")
    args = ["--jars", jars, "--driver-class-path", os.pathsep.join([*jars.split(","), *driver_class_path])]
    for key, value in conf.items():
        args += ["--conf", f"{key}={value}"]
    return args


def enable_hbase(
    builder_or_session, hbase_conf: Optional[dict[str, str]] = None, data_dir: Union[str, os.PathLike, None] = None
):
    """Make a Spark session speak HBase SQL.

    Given `SparkSession.builder`, returns it configured with the plugin jar, the extension, the
    `hbase` catalog (unless the builder already names one so) and the HBase address. Given a running session that already has the extension, points it at HBase;
    a running session without it cannot gain a parser, so that raises HBaseSessionError.
    """
    # pyspark.sql only when asked (it takes a second to import), not at `import pyspark_hbase`.
    from pyspark.sql import SparkSession

    if _is_connect_client(builder_or_session):
        raise HBaseSessionError(
            "this is a Spark Connect client, which has no Spark driver of its own to load the plugin "
            "into: the Connect server needs it. Start one with the plugin and connect to the URL it "
            "prints:\n"
            "    spark-hbase connect start\n"
            '    spark = SparkSession.builder.remote("sc://127.0.0.1:<port>").getOrCreate()\n'
            "or start your own server with start-connect-server.sh and the flags printed by "
            "`spark-hbase conf`."
        )
    if isinstance(builder_or_session, SparkSession):
        return _enable_running(builder_or_session, hbase_conf, data_dir)
    builder = builder_or_session
    for key, value in spark_conf(hbase_conf, data_dir, dict(getattr(builder, "_options", {}))).items():
        if key == "spark.sql.extensions":
            value = _merge_extensions(_builder_option(builder, key), value)
        elif key == CATALOG_KEY and _builder_option(builder, key):
            continue  # a catalog the user named hbase stays theirs
        builder = builder.config(key, value)
    return builder


def _enable_running(spark, hbase_conf, data_dir):
    extensions = spark.sparkContext.getConf().get("spark.sql.extensions", "") or ""
    if EXTENSION_CLASS not in [e.strip() for e in extensions.split(",")]:
        raise HBaseSessionError(
            "this Spark session was started without the HBase SQL extension, and a running session "
            "cannot add one. Stop it and build a new one instead:\n"
            "    spark.stop()\n"
            "    spark = enable_hbase(SparkSession.builder).getOrCreate()\n"
            "or start pyspark/spark-submit with the flags printed by `spark-hbase conf`."
        )
    configured = {k: spark.conf.get(k, None) for k in _NAMING_KEYS}
    for key, value in hbase_settings(hbase_conf, data_dir, {k: v for k, v in configured.items() if v}).items():
        spark.conf.set(key, value)
    if not spark.conf.get(CATALOG_KEY, None):
        spark.conf.set(CATALOG_KEY, CATALOG_CLASS)
    return spark


def _is_connect_client(builder_or_session) -> bool:
    """A Connect session, or a builder that will make one (`.remote(url)`, SPARK_REMOTE)."""
    if type(builder_or_session).__module__.startswith("pyspark.sql.connect"):
        return True
    if not hasattr(builder_or_session, "getOrCreate"):
        return False
    return bool(
        _builder_option(builder_or_session, "spark.remote")
        or os.environ.get("SPARK_REMOTE")
        or os.environ.get("SPARK_CONNECT_MODE_ENABLED") == "1"
    )


def _builder_option(builder, key: str) -> Optional[str]:
    options = getattr(builder, "_options", {})
    return options.get(key)


def _merge_extensions(existing: Optional[str], ours: str) -> str:
    names = [e.strip() for e in (existing or "").split(",") if e.strip()]
    return ",".join(names if ours in names else names + [ours])
