"""Wiring a Spark session to HBase: the plugin jar, our Catalyst extension and the HBase address."""

import os
from typing import Optional, Union

from . import _paths

EXTENSION_CLASS = "org.apache.spark.sql.hbase.HBaseSparkSessionExtension"
CATALOG_CLASS = "org.apache.spark.sql.hbase.connector.HBaseSparkCatalog"
CATALOG_NAME = "hbase"
CATALOG_KEY = f"spark.sql.catalog.{CATALOG_NAME}"


class HBaseSessionError(RuntimeError):
    """The session cannot be made to speak HBase SQL; the message says how to fix it."""


def hbase_settings(
    hbase_conf: Optional[dict[str, str]] = None, data_dir: Union[str, os.PathLike, None] = None
) -> dict[str, str]:
    """The `spark.hbase.*` settings that reach HBase.

    Explicit `hbase_conf` ({"hbase.zookeeper.quorum": ..., ...}) wins; else HBASE_CONF_DIR, which
    the plugin reads itself; else the local embedded HBase, which must be running.
    """
    if hbase_conf is not None:
        return {_spark_key(k): str(v) for k, v in hbase_conf.items()}
    if os.environ.get("HBASE_CONF_DIR") and data_dir is None:
        return {"spark.hbase.conf.dir": os.environ["HBASE_CONF_DIR"]}
    from .local import LocalHBase

    return {_spark_key(k): v for k, v in LocalHBase(data_dir).client_conf().items()}


def _spark_key(key: str) -> str:
    return key if key.startswith("spark.") else f"spark.{key}"


def spark_conf(
    hbase_conf: Optional[dict[str, str]] = None, data_dir: Union[str, os.PathLike, None] = None
) -> dict[str, str]:
    """Every Spark setting HBase SQL needs: jar, extension, the `hbase` catalog and HBase address."""
    jars = ",".join(str(j) for j in _paths.plugin_jars())
    return {
        "spark.jars": jars,
        "spark.sql.extensions": EXTENSION_CLASS,
        CATALOG_KEY: CATALOG_CLASS,
        **hbase_settings(hbase_conf, data_dir),
    }


def submit_args(
    hbase_conf: Optional[dict[str, str]] = None, data_dir: Union[str, os.PathLike, None] = None
) -> list[str]:
    """The same settings as spark-submit / spark-sql / pyspark flags.

    The jar goes on the driver's class path as well as in --jars: Spark's Thrift server runs Hive
    2.3's session code, which closes the class loader holding the --jars when a JDBC session
    closes (HIVE-22989), so the plugin's classes must come from the JVM's own class path there.
    --jars still ships the jar to the executors.
    """
    conf = spark_conf(hbase_conf, data_dir)
    jars = conf.pop("spark.jars")
    args = ["--jars", jars, "--driver-class-path", os.pathsep.join(jars.split(","))]
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
    for key, value in spark_conf(hbase_conf, data_dir).items():
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
    for key, value in hbase_settings(hbase_conf, data_dir).items():
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
