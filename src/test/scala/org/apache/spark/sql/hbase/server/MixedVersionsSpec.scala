// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.{ClusterConnection, Scan}
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.hbase.{HBaseSuite, codec}
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.hbase.connection.HBaseConnections
import org.apache.spark.sql.hbase.execution.{HBaseAggregateScan, HBaseTableScan, ScanMetrics}
import org.apache.spark.sql.hbase.facts.WireRefusal
import org.apache.spark.sql.hbase.common.HBaseSQLConf
import org.apache.spark.sql.hbase.server.{
  AggregateBatch, AggregateFunction, AggregateSpec, Operand, RawRegionScans, ServerJar, ServerVersions, SkipScanFilter
}

/**
 * Clients and region servers of different wire versions, against the real HBase: the region
 * servers read every version from the oldest to the newest and refuse a newer one in a way the
 * client tells by type, the aggregation coprocessor tells its versions, and a plan carried out in
 * an older version gives what the newest gives.
 */
class MixedVersionsSpec extends HBaseSuite with AdaptiveSparkPlanHelper {

  /** Key k INT in [0, 2000), 2 regions split at 1000; g = k % 7 as text, v = k % 100. */
  private lazy val table = {
    val t = uniqueName("versions")
    sql(
      s"CREATE TABLE $t (k INT, g STRING, v INT, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[g=f.g, v=f.v]) LAYOUT CELLS SPLIT ON ((1000))"
    )
    sql(s"INSERT INTO $t SELECT CAST(id AS INT), CAST(id % 7 AS STRING), CAST(id % 100 AS INT) FROM range(0, 2000)")
    t
  }

  private def withRawScans[T](t: String)(body: RawRegionScans => T): T =
    HBaseConnections.withConnection(cluster) { c =>
      body(new RawRegionScans(c.asInstanceOf[ClusterConnection], TableName.valueOf(t), 30000))
    }

  private def filterBytes(version: Int): Array[Byte] = {
    val layout = new codec.BinaryKeyCodec(Seq(org.apache.spark.sql.types.IntegerType)).sliceLayout
    new SkipScanFilter(layout, null, Array.empty[Operand], null, null, null, version).toByteArray
  }

  describe("a region server") {
    it("runs the filter of every wire version from the oldest to the newest, and refuses a newer one by type") {
      withRawScans(table) { raw =>
        val name = classOf[SkipScanFilter].getName
        val plain = raw.attempt(new Scan()).toOption.get.map(r => Bytes.toStringBinary(r.getRow))
        plain should have size 1000
        (ServerJar.OLDEST_WIRE_VERSION to ServerJar.WIRE_VERSION).foreach { version =>
          withClue(s"version $version: ")(
            raw.attempt(new Scan(), Some(name -> filterBytes(version))).map(_.map(r =>
              Bytes.toStringBinary(r.getRow)
            )) shouldBe
              Right(plain)
          )
        }
        val newer = filterBytes(ServerJar.WIRE_VERSION)
        Bytes.putInt(newer, 0, ServerJar.WIRE_VERSION + 1)
        val refused = raw.attempt(new Scan(), Some(name -> newer)).swap.toOption.get
        WireRefusal.ofVersion(refused) shouldBe true
        val missing = raw.attempt(new Scan(), Some("org.example.NoSuchFilter" -> newer)).swap.toOption.get
        WireRefusal.of(missing) shouldBe true
        WireRefusal.ofVersion(missing) shouldBe false
      }
    }

    it("tells its wire versions when asked, even over an empty table, and answers a version 1 count in version 1") {
      val empty = uniqueName("versions_empty")
      sql(s"CREATE TABLE $empty (k INT, v INT, PRIMARY KEY (k)) MAPPED BY ($empty, COLS=[v=f.v])")
      withRawScans(empty) { raw =>
        val asking = new Scan()
        ServerVersions.askIn(asking)
        val answer = raw.attempt(asking).toOption.get
        answer should have size 1
        val versions = ServerVersions.from(answer.head)
        (versions.oldest, versions.newest) shouldBe ((ServerJar.OLDEST_WIRE_VERSION, ServerJar.WIRE_VERSION))
      }
      withRawScans(table) { raw =>
        val layout = new codec.BinaryKeyCodec(Seq(org.apache.spark.sql.types.IntegerType)).sliceLayout
        val count =
          new AggregateSpec(
            layout,
            Array.empty[Operand],
            null,
            Array.empty[Int],
            Array(AggregateFunction.countRows()),
            10,
            100,
            0,
            1
          )
        val batches = raw.attempt(new Scan().setAttribute(AggregateSpec.ATTRIBUTE, count.toByteArray)).toOption.get
        batches.forall(AggregateBatch.isBatch) shouldBe true
        batches.foreach { b =>
          val cell = b.rawCells()(0)
          withClue("a batch comes back in the spec's version: ")(Bytes.toInt(
            cell.getValueArray,
            cell.getValueOffset
          ) shouldBe 1)
        }
        batches.map(AggregateBatch.read(count, _).rowsScanned).sum shouldBe 1000
      }
    }
  }

  describe("an application pinned to an older wire version") {
    it("plans in it, and gives what the newest gives and what Spark gives without the region servers") {
      def scanOf(df: DataFrame) = collectWithSubqueries(df.queryExecution.executedPlan) { case s: HBaseTableScan =>
        s
      }
      def aggregateOf(df: DataFrame) =
        collectWithSubqueries(df.queryExecution.executedPlan) { case s: HBaseAggregateScan => s }
      val scanned = s"SELECT k, g FROM $table WHERE k BETWEEN 900 AND 1100 AND v < 50"
      val grouped = s"SELECT g, count(*), sum(v), max(v) FROM $table WHERE k > 10 GROUP BY g"
      val truth = withConf(HBaseSQLConf.CustomFilter.key -> "false", HBaseSQLConf.Coprocessor.key -> "false") {
        (sql(scanned).collect().toSeq.sortBy(_.toString), sql(grouped).collect().toSeq.sortBy(_.toString))
      }
      truth._1 should have size 101
      (ServerJar.OLDEST_WIRE_VERSION to ServerJar.WIRE_VERSION).foreach { version =>
        withClue(s"version $version: ") {
          withConf(
            HBaseSQLConf.WireVersion.key -> version.toString,
            HBaseSQLConf.CoprocessorMaxGroupBytes.key -> "1k"
          ) {
            val scan = sql(scanned)
            scan.collect().toSeq.sortBy(_.toString) shouldBe truth._1
            scanOf(scan).map(_.plan.request.wireVersion) shouldBe Seq(version)
            scanOf(scan).head.plan.regions.forall(_.server.isDefined) shouldBe true
            val aggregate = sql(grouped)
            aggregate.collect().toSeq.sortBy(_.toString) shouldBe truth._2
            if (!AggregateSpec.checksKeys(version)) {
              // Such a region server would fold in rows another tool wrote with keys that are not
              // the table's; only Spark tells them: the aggregate stays in Spark.
              aggregateOf(aggregate) shouldBe empty
            } else {
              val plan = aggregateOf(aggregate).head.plan
              plan.wireVersion shouldBe version
              ScanMetrics.of(aggregate)("memoryFlushes") should be > 0L
            }
          }
        }
      }
    }
  }
}
