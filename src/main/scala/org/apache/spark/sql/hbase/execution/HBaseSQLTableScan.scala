package org.apache.spark.sql.hbase.execution

import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration.Duration

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{And, Attribute, Expression, UnsafeProjection}
import org.apache.spark.sql.execution.{LeafExecNode, SQLExecution}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.hbase.HBaseSQLConf
import org.apache.spark.sql.hbase.codec.KeyCodec
import org.apache.spark.sql.hbase.planning.{HBaseRelation, KeyBoxes, KeyRanges, RegionScan, ScanPlan, ServerPredicates}

/**
 * Scans an HBase table with one Spark partition per region that the key ranges touch, in region
 * order. Each partition reads the columns `read` of its region's part of the ranges, keeps the
 * rows that pass what is left of `condition` in that region, and returns their `output` columns.
 *
 * A collect that reads one region, or only point and prefix lookups, runs on the driver without
 * a job (see `spark.sql.hbase.driverRead.maxKeyRanges`): a lookup then costs HBase round trips,
 * not a Spark job.
 */
case class HBaseSQLTableScan(
    output: Seq[Attribute],
    relation: HBaseRelation,
    condition: Option[Expression],
    read: Seq[Attribute])
  extends LeafExecNode {

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "regionsTotal" -> SQLMetrics.createMetric(sparkContext, "regions in the table"),
    "regionsScanned" -> SQLMetrics.createMetric(sparkContext, "regions read"),
    "keyRanges" -> SQLMetrics.createMetric(sparkContext, "row key ranges read"),
    "rowsRead" -> SQLMetrics.createMetric(sparkContext, "rows read from HBase"),
    "gets" -> SQLMetrics.createMetric(sparkContext, "Gets"))

  /** Looked up once per plan: EXPLAIN and execution show and read the same regions. */
  @transient lazy val scanPlan: ScanPlan = {
    val table = relation.table
    val expiration = conf.getConf(HBaseSQLConf.PartitionExpiration)
    val regions = HBaseRegions.cached(relation.cluster, table.hbaseTable, expiration)
    val pushdown = conf.getConf(HBaseSQLConf.Pushdown)
    val keys = if (pushdown) relation.prunableKeys else Nil
    val codec = KeyCodec.forTable(table)
    val plan = ScanPlan(regions, relation.keyRanges, keys, codec, condition)
    if (!pushdown || !conf.getConf(HBaseSQLConf.CustomFilter) || plan.regions.isEmpty ||
        !ServerFilterSupport.available(relation.cluster, table, expiration)) plan
    else {
      val boxes = KeyBoxes(relation.keyRanges, condition, relation.keyAttributes, codec, conf.getConf(HBaseSQLConf.MaxKeyRanges))
      plan.withServerFilters(boxes, new ServerPredicates(table, codec, relation.columnOf).pushable)
    }
  }

  private def request: ScanRequest = ScanRequest(relation.table, relation.cluster, read, read.map(relation.columnOf),
    output, ScanLimits(conf.getConf(HBaseSQLConf.ScannerFetchSize), relation.limit))

  override protected def doExecute(): RDD[InternalRow] = {
    val plan = reportPlan()
    val rows = new HBaseScanRDD(sparkContext, request, plan.regions, longMetric("rowsRead"), longMetric("gets"))
    val (outputColumns, readColumns) = (output, read)
    rows.mapPartitionsWithIndexInternal { (index, iter) =>
      val project = UnsafeProjection.create(outputColumns, readColumns)
      project.initialize(index)
      iter.map(project)
    }
  }

  override def executeCollect(): Array[InternalRow] =
    if (readsOnDriver) readOnDriver(Int.MaxValue) else super.executeCollect()

  override def executeTake(n: Int): Array[InternalRow] =
    if (readsOnDriver) readOnDriver(n) else super.executeTake(n)

  private def readsOnDriver: Boolean = {
    val max = conf.getConf(HBaseSQLConf.DriverReadMaxKeyRanges)
    max > 0 && (scanPlan.regions.size <= 1 || (scanPlan.lookups && scanPlan.keyRanges <= max))
  }

  /** Regions are read in parallel for a collect, one after another for a take. */
  private def readOnDriver(maxRows: Int): Array[InternalRow] = {
    val plan = reportPlan()
    // Each region counts into its own metrics, added up here: metrics are not thread-safe.
    val counted = plan.regions.map(_ => (new SQLMetric("sum"), new SQLMetric("sum")))
    val scanRequest = request
    def readRegion(region: RegionScan, index: Int, max: Int): Array[InternalRow] = {
      val project = UnsafeProjection.create(output, read)
      val (rowsRead, gets) = counted(index)
      var close: () => Unit = () => ()
      try {
        HBaseScanRDD.readRegion(scanRequest, region, index, rowsRead, gets, c => close = c)
          .take(max).map(row => project(row).copy()).toArray
      } finally close()
    }
    val rows =
      if (maxRows == Int.MaxValue && plan.regions.size > 1) {
        implicit val ec: ExecutionContext = HBaseSQLTableScan.driverReads
        val reads = plan.regions.zipWithIndex.map { case (r, i) => Future(readRegion(r, i, maxRows)) }
        reads.flatMap(f => Await.result(f, Duration.Inf)).toArray
      } else {
        val out = Array.newBuilder[InternalRow]
        var taken = 0
        plan.regions.zipWithIndex.foreach { case (r, i) =>
          if (taken < maxRows) { val part = readRegion(r, i, maxRows - taken); out ++= part; taken += part.length }
        }
        out.result()
      }
    longMetric("rowsRead") += counted.map(_._1.value).sum
    longMetric("gets") += counted.map(_._2.value).sum
    postDriverMetrics(Seq("rowsRead", "gets"))
    rows
  }

  private def reportPlan(): ScanPlan = {
    val plan = scanPlan
    longMetric("regionsTotal").set(plan.regionsTotal)
    longMetric("regionsScanned").set(plan.regions.size)
    longMetric("keyRanges").set(plan.keyRanges)
    postDriverMetrics(Seq("regionsTotal", "regionsScanned", "keyRanges"))
    plan
  }

  private def postDriverMetrics(names: Seq[String]): Unit =
    SQLMetrics.postDriverMetricUpdates(sparkContext, sparkContext.getLocalProperty(SQLExecution.EXECUTION_ID_KEY),
      names.map(longMetric))

  override def simpleString(maxFields: Int): String = {
    val plan = scanPlan
    val ranges = relation.keyRanges match {
      case KeyRanges.FullScan => "full scan"
      case KeyRanges.Ranges(rs) => s"${rs.size} key ranges ${rs.take(3).mkString(", ")}${if (rs.size > 3) ", ..." else ""}"
    }
    def perRegion(parts: Seq[String]): String = parts.distinct match {
      case Seq() => "none"
      case Seq(one) => one
      case many => s"per region: ${many.take(3).mkString("; ")}${if (many.size > 3) "; ..." else ""}"
    }
    def conjunction(parts: Seq[Expression]) = parts.reduceOption(And).fold("none")(_.sql)
    val residual = perRegion(plan.regions.map(r => conjunction(r.server.toSeq.flatMap(_.pushed) ++ r.residual)))
    val server = plan.regions.flatMap(_.server)
    val serverPart = if (server.isEmpty) "" else {
      val boxes = server.flatMap(_.boxes).flatten.distinct
      val skip = if (boxes.isEmpty) "" else s", skip scan ${boxes.take(3).mkString(", ")}${if (boxes.size > 3) ", ..." else ""}"
      s"$skip, in region servers ${perRegion(server.map(s => conjunction(s.pushed)))}"
    }
    s"HBaseSQLTableScan ${relation.table.name} [${relation.table.hbaseTable}] " +
      s"regions ${plan.regions.size} of ${plan.regionsTotal}, $ranges, " +
      s"${plan.gets} Gets and ${plan.scans} scans, residual $residual$serverPart, " +
      s"columns [${output.map(_.name).mkString(", ")}]" +
      (if (read != output) s", reads [${read.map(_.name).mkString(", ")}]" else "") + relation.limit.fold("")(n => s", limit $n")
  }
}

object HBaseSQLTableScan {
  /** Threads that read regions for lookups collected on the driver; idle ones end after a minute. */
  private lazy val driverReads: ExecutionContext = {
    val pool = new java.util.concurrent.ThreadPoolExecutor(8, 8, 60L, java.util.concurrent.TimeUnit.SECONDS,
      new java.util.concurrent.LinkedBlockingQueue[Runnable](), (r: Runnable) => {
        val thread = new Thread(r, "hbase-driver-read"); thread.setDaemon(true); thread
      })
    pool.allowCoreThreadTimeOut(true)
    ExecutionContext.fromExecutorService(pool)
  }
}
