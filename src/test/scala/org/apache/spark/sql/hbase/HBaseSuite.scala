// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase

import java.util.concurrent.atomic.AtomicInteger

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.{RegionMetrics, TableName}
import org.apache.hadoop.hbase.client.{Admin, ColumnFamilyDescriptorBuilder, Table, TableDescriptorBuilder}
import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}

/** Base of the suites that run SQL against the real HBase. */
@RequiresHBase
abstract class HBaseSuite extends AnyFunSpec with Matchers {

  // The HBase is made ready when a suite that needs it runs, never when a pure spec alone does.
  override def run(testName: Option[String], args: org.scalatest.Args): org.scalatest.Status = {
    TestHBase.ensureRunning()
    SuiteProgress.started(getClass.getSimpleName)
    super.run(testName, args)
  }

  protected lazy val spark: SparkSession = HBaseSparkSession.session

  protected def sql(text: String): DataFrame = spark.sql(text)

  /**
   * A new session of the shared Spark context whose catalog is HBase table `catalogTable`. Specs that
   * break catalog entries on purpose use one of their own: while an entry cannot be read, statements
   * that read every entry (CREATE INDEX, DROP TABLE of an HBase table another entry may map) refuse,
   * and other specs run beside them.
   */
  protected def sessionWithCatalog(catalogTable: String): SparkSession = {
    val session = HBaseSparkSession.session.newSession()
    session.conf.set(common.HBaseSQLConf.CatalogTable.key, catalogTable)
    session
  }

  private val counter = new AtomicInteger()

  /** A table name no other test uses, so tests never see each other's rows. */
  protected def uniqueName(prefix: String): String =
    s"${prefix}_${getClass.getSimpleName.toLowerCase.replaceAll("[^a-z0-9]", "")}_${System.nanoTime() % 1000000}_${counter.incrementAndGet()}"

  /** Runs `body` with these session settings, then puts back what was set before. */
  protected def withConf[T](settings: (String, String)*)(body: => T): T = withConf(spark)(settings: _*)(body)

  /** Runs `body` with these settings of `session`, then puts back what was set before. */
  protected def withConf[T](session: SparkSession)(settings: (String, String)*)(body: => T): T = {
    val previous = settings.map { case (key, _) => key -> session.conf.getOption(key) }
    settings.foreach { case (key, value) => session.conf.set(key, value) }
    try body
    finally previous.foreach { case (key, value) => value.fold(session.conf.unset(key))(session.conf.set(key, _)) }
  }

  /** Runs `body` with `listener` hearing every event it causes, and none from before. */
  protected def listening[T](listener: org.apache.spark.scheduler.SparkListener)(body: => T): T = {
    spark.sparkContext.listenerBus.waitUntilEmpty()
    spark.sparkContext.addSparkListener(listener)
    try { val result = body; spark.sparkContext.listenerBus.waitUntilEmpty(); result }
    finally spark.sparkContext.removeSparkListener(listener)
  }

  /** How many Spark jobs `body` ran. */
  protected def jobsRunBy(body: => Unit): Int = {
    val jobs = new java.util.concurrent.atomic.AtomicInteger()
    listening(new org.apache.spark.scheduler.SparkListener {
      override def onJobStart(e: org.apache.spark.scheduler.SparkListenerJobStart): Unit = jobs.incrementAndGet()
    })(body)
    jobs.get()
  }

  /** Runs `check` until it passes, every 50 ms, failing as it last failed after `seconds`. */
  protected def eventually(seconds: Int)(check: => Unit): Unit = Waits.untilPasses(seconds.toDouble)(check)

  protected def cluster: HBaseClusterConf = HBaseClusterConf.fromSession(spark)

  protected def withAdmin[T](body: Admin => T): T = HBaseConnections.withConnection(cluster) { c =>
    val admin = c.getAdmin
    try body(admin)
    finally admin.close()
  }

  /** What the region servers report of each region of HBase table `table`: reads, writes, files. */
  protected def regionMetrics(table: String): Seq[RegionMetrics] = withAdmin { admin =>
    admin.getRegionServers.asScala.toSeq.flatMap(admin.getRegionMetrics(_, TableName.valueOf(table)).asScala)
  }

  /**
   * Writes the memstores of HBase table `name` and of its index tables (named after it) to HFiles,
   * where a cluster's rows mostly are. The differential specs read their tables hundreds of times,
   * and took less CPU in all (region servers and test JVM) read from HFiles than from the memstore,
   * run alone: PlannerDifferentialSpec 229-243 CPU s against 262, AggregateDifferentialSpec 206
   * against 264.
   */
  protected def flushed(name: String): Unit = withAdmin { admin =>
    admin.listTableNames(java.util.regex.Pattern.compile(java.util.regex.Pattern.quote(name) + "(\\..+)?")).foreach(
      admin.flush
    )
  }

  protected def withTable[T](name: String)(body: Table => T): T = HBaseConnections.withConnection(cluster) { c =>
    val table = c.getTable(TableName.valueOf(name))
    try body(table)
    finally table.close()
  }

  protected def createHBaseTable(name: String, families: Seq[String], splits: Seq[Array[Byte]] = Nil): Unit =
    withAdmin { admin =>
      val builder = TableDescriptorBuilder.newBuilder(TableName.valueOf(name))
      families.foreach(f => builder.setColumnFamily(ColumnFamilyDescriptorBuilder.of(f)))
      if (splits.isEmpty) admin.createTable(builder.build()) else admin.createTable(builder.build(), splits.toArray)
    }

  protected def hbaseTableExists(name: String): Boolean = withAdmin(_.tableExists(TableName.valueOf(name)))
}
