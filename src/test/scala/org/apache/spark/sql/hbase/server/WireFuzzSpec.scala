// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server

import java.io.{ByteArrayOutputStream, DataOutputStream}

import scala.jdk.CollectionConverters._
import scala.util.{Failure, Random, Success, Try}

import org.apache.hadoop.hbase.{Cell, CellUtil, TableName}
import org.apache.hadoop.hbase.client.{ClusterConnection, Result, Scan}
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.hbase.HBaseSuite
import org.apache.spark.sql.hbase.connection.HBaseConnections
import org.apache.spark.sql.hbase.execution.{HBaseAggregateScan, HBaseTableScan}
import org.apache.spark.sql.hbase.planner.RegionRequests

/**
 * The server jar's wire formats under hostile bytes, in a real region server: the filter's
 * (SkipScanFilter.parseFrom), the aggregation attribute's (AggregateSpec.parseFrom) and the top-n
 * attribute's (TopNSpec.parseFrom). Seeds are
 * the payloads the plugin sends for real queries; the fuzz mutates them and adds random bytes.
 * Every payload is also decoded here: bytes that do not parse must be refused with the parser's
 * own message, and bytes that do must give exactly what the decoded filter or aggregation means.
 */
class WireFuzzSpec extends HBaseSuite with AdaptiveSparkPlanHelper {
  import WireFuzzSpec.Groups

  private val FilterPayloads = 6000
  private val AggregatePayloads = 6000
  private val TopNPayloads = 3000
  private val CallTimeoutMillis = 10000

  /** Key (a INT, b STRING), cells in two families, some missing; one region. */
  private lazy val table: String = {
    val t = uniqueName("fuzz")
    sql(
      s"CREATE TABLE $t (a INT, b STRING, v INT, d DECIMAL(10, 2), s STRING, PRIMARY KEY (a, b)) " +
        s"MAPPED BY ($t, COLS=[v=f.v, d=f.d, s=g.s])"
    )
    sql(
      s"INSERT INTO $t SELECT CAST(id % 12 AS INT), concat('k', id DIV 12), IF(id % 7 = 0, NULL, CAST(id * 3 - 50 AS INT)), " +
        s"CAST(id / 4 AS DECIMAL(10, 2)), IF(id % 5 = 0, NULL, substr('mxyzab', 1 + CAST(id % 6 AS INT))) FROM range(0, 120)"
    )
    t
  }

  /** The same shape keyed as text, so that seeds carry a delimited key layout too. */
  private lazy val textTable: String = {
    val t = uniqueName("fuzztext")
    sql(
      s"CREATE TABLE $t (a STRING, b INT, v INT, PRIMARY KEY (a, b)) MAPPED BY ($t, COLS=[v=f.v]) IN StringFormat DELIMITER '|'"
    )
    sql(s"INSERT INTO $t SELECT concat('k', id % 4), CAST(id AS INT), CAST(id * 2 AS INT) FROM range(0, 20)")
    t
  }

  /**
   * The same shape in LAYOUT PACKED, so that seeds carry operands that read slots of packed cells
   * (wire version 4). Every other payload goes to its region, where packed operands read real
   * packed cells; sent to the fuzz table's region, they meet its cells of one column as malformed ones.
   */
  private lazy val packedTable: String = {
    val t = uniqueName("fuzzpacked")
    sql(
      s"CREATE TABLE $t (a INT, b STRING, v INT, d DECIMAL(10, 2), s STRING, PRIMARY KEY (a, b)) " +
        s"MAPPED BY ($t, COLS=[v=f.v, d=f.d, s=g.s]) LAYOUT PACKED"
    )
    sql(s"INSERT INTO $t SELECT * FROM $table")
    t
  }

  private def plans(query: String): DataFrame = withConf("spark.sql.adaptive.enabled" -> "false")(sql(query))

  /** The filters the plugin sends for these queries. */
  private def filterSeeds: Seq[Array[Byte]] = {
    val queries = Seq(
      s"SELECT * FROM $table WHERE a = 3",
      s"SELECT a, b, v FROM $table WHERE b = 'k4'",
      s"SELECT * FROM $table WHERE a BETWEEN 2 AND 7 AND b >= 'k5'",
      s"SELECT s FROM $table WHERE v > 40 OR s LIKE 'x%'",
      s"SELECT * FROM $table WHERE a IN (1, 4, 9) AND d < 20.5",
      s"SELECT a FROM $table WHERE s IS NULL AND b IN ('k1', 'k2', 'k3')",
      s"SELECT d FROM $table WHERE s LIKE '%y%' OR s LIKE '%z' OR NOT (v <=> 10)",
      s"SELECT * FROM $textTable WHERE a = 'k2' AND v > 3",
      s"SELECT b FROM $textTable WHERE a IN ('k1', 'k3')",
      s"SELECT * FROM $packedTable WHERE v > 40 OR s LIKE 'x%'",
      s"SELECT a FROM $packedTable WHERE a IN (1, 4) AND d < 20.5 AND s IS NOT NULL"
    )
    queries.flatMap { q =>
      collectWithSubqueries(plans(q).queryExecution.executedPlan) { case s: HBaseTableScan => s }.flatMap { s =>
        s.plan.regions.flatMap(r =>
          r.server.map(server =>
            RegionRequests.scanFilter(s.plan.request, server, s.plan.request.returnedColumns(r.residual))
          )
        )
      }
    }.map(_.toByteArray)
  }

  /** The aggregations (and their filters) the plugin sends for these queries. */
  private def aggregateSeeds: Seq[(Array[Byte], Array[Byte])] = {
    val queries = Seq(
      s"SELECT b, count(*), sum(v), min(s), max(s) FROM $table WHERE a > 2 GROUP BY b",
      s"SELECT count(*), sum(d), avg(d), sum(v * 2 - a) FROM $table",
      s"SELECT a, sum(CAST(v AS DECIMAL(12, 2)) + d), count(s) FROM $table WHERE s >= 'm' GROUP BY a",
      s"SELECT s, -sum(-v), max(b), count(v) FROM $table GROUP BY s",
      s"SELECT a, count(*), sum(v) FROM $textTable GROUP BY a",
      s"SELECT s, count(*), sum(d), max(v) FROM $packedTable WHERE a > 2 GROUP BY s"
    )
    val planned = queries.flatMap { q =>
      collectWithSubqueries(plans(q).queryExecution.executedPlan) { case s: HBaseAggregateScan => s }.flatMap { s =>
        s.plan.scan.regions.map(r =>
          RegionRequests.aggregateSpec(s.plan, r).toByteArray -> RegionRequests.aggregateFilter(s.plan, r).toByteArray
        )
      }
    }
    // And one over a global index's rows (wire version 6), which reads the rows here as an index's.
    val index = new IndexSpec(
      "fuzz.by_v.idx",
      Array(Operand.cell(Bytes.toBytes("f"), Bytes.toBytes("v"), CellType.INT, 0, 0)),
      Array.empty,
      Array.empty
    )
    planned ++ planned.take(1).map { case (spec, filter) =>
      AggregateSpec.parseFrom(spec).overIndexRows(index).toByteArray -> filter
    }
  }

  /** The top-n specs the plugin sends for these queries. */
  private def topNSeeds: Seq[Array[Byte]] = {
    val queries = Seq(
      s"SELECT * FROM $table ORDER BY v DESC, s LIMIT 5",
      s"SELECT a, d FROM $table WHERE v > 0 ORDER BY d NULLS LAST, b LIMIT 17",
      s"SELECT * FROM $table ORDER BY s DESC NULLS FIRST, b DESC LIMIT 200",
      s"SELECT * FROM $packedTable ORDER BY d, s LIMIT 9",
      s"SELECT b, v FROM $packedTable ORDER BY v NULLS LAST LIMIT 1"
    )
    queries.flatMap { q =>
      collectWithSubqueries(plans(q).queryExecution.executedPlan) { case s: HBaseTableScan => s }
        .flatMap(_.plan.request.topN).map(_.spec.bytes)
    }.distinctBy(_.toSeq)
  }

  /** Payloads a fuzzer rarely finds: nesting past the parsers' limits and just within them, a huge count. */
  private def handmadeFilters: Seq[(String, Array[Byte])] = {
    def filterWithNots(depth: Int) = payload { out =>
      oneDimensionLayout(out)
      out.writeBoolean(false) // no key boxes
      out.writeInt(1); out.writeInt(0) // one operand: the key
      out.writeBoolean(true)
      (1 to depth).foreach { _ => out.writeByte(3); out.writeInt(-1); out.writeInt(1) } // NOT, one child
      out.writeByte(4); out.writeInt(0); out.writeInt(0); out.writeInt(0) // IS_NULL #0
      (1 to depth).foreach(_ => out.writeInt(0)) // no literals
      out.writeBoolean(false)
    }
    Seq(
      "predicate nested 5000 deep" -> filterWithNots(5000),
      "predicate nested 900 deep" -> filterWithNots(900),
      "a billion key boxes" -> payload { out => oneDimensionLayout(out); out.writeBoolean(true); out.writeInt(1 << 30) }
    )
  }

  private def handmadeAggregates: Seq[(String, Array[Byte])] = {
    def sumOfNegations(depth: Int) = payload { out =>
      oneDimensionLayout(out)
      out.writeInt(1); out.writeInt(0) // one operand: the key
      out.writeBoolean(false) // no predicate
      out.writeInt(0) // no groups
      out.writeInt(1); out.writeByte(AggregateFunction.SUM); out.writeBoolean(true)
      (1 to depth).foreach { _ =>
        out.writeByte(4); out.writeByte(1); out.writeInt(8); out.writeInt(0); out.writeInt(0); out.writeBoolean(false)
      }
      out.writeByte(1); out.writeByte(1); out.writeInt(0); out.writeInt(0) // #0 as a LONG
      out.writeInt(100); out.writeInt(100) // group cap, slice
    }
    Seq(
      "value expression nested 10000 deep" -> sumOfNegations(10000),
      "value expression nested 60 deep" -> sumOfNegations(60),
      "a billion operands" -> payload { out => oneDimensionLayout(out); out.writeInt(1 << 30) }
    )
  }

  private def oneDimensionLayout(out: DataOutputStream): Unit = {
    out.writeInt(1); out.writeByte(KeyLayout.FIXED); out.writeInt(4); out.writeInt(0)
  }

  private def payload(write: DataOutputStream => Unit): Array[Byte] = {
    val bytes = new ByteArrayOutputStream()
    val out = new DataOutputStream(bytes)
    out.writeInt(ServerJar.WIRE_VERSION)
    write(out)
    out.flush()
    bytes.toByteArray
  }

  /** Seeds as they are, then `n` fuzzed payloads, named by how they were made. */
  private def fuzz(seeds: Seq[Array[Byte]], handmade: Seq[(String, Array[Byte])], n: Int, random: Random) =
    seeds.map("seed" -> _) ++ handmade ++ (1 to n).map { _ =>
      if (random.nextInt(10) < 8) ByteMutations.mutate(seeds(random.nextInt(seeds.size)), random)
      else ByteMutations.random(random)
    }

  private type CellView = (String, String, String, String)
  private def view(cells: Seq[Cell]): Seq[CellView] = cells.map { c =>
    (
      Bytes.toStringBinary(CellUtil.cloneRow(c)),
      Bytes.toStringBinary(CellUtil.cloneFamily(c)),
      Bytes.toStringBinary(CellUtil.cloneQualifier(c)),
      Bytes.toStringBinary(CellUtil.cloneValue(c))
    )
  }
  private def viewResults(results: Seq[Result]): Seq[CellView] = view(results.flatMap(_.rawCells()))

  /** What each payload did, by how it was made. */
  private final class Tally {
    private val counts = scala.collection.mutable.TreeMap[(String, String), Int]()
    def apply(kind: String, outcome: String): Unit = counts((kind, outcome)) = counts.getOrElse((kind, outcome), 0) + 1
    def of(outcome: String): Int = counts.collect { case ((_, o), n) if o == outcome => n }.sum
    def ofKind(kind: String, outcome: String): Int = counts.getOrElse((kind, outcome), 0)
    override def toString: String = counts.map { case ((k, o), n) => s"$k $o: $n" }.mkString(", ")
  }

  /**
   * Payloads go to the region servers holding the fuzz table's one region and the packed table's
   * one region (real packed cells), with no retries: the balancer must not move them meanwhile (it
   * did once, in a fresh-clone run, after other suites had created many tables). Each region comes
   * with its rows as read by a plain scan.
   */
  private def withRawScans[T](body: IndexedSeq[(RawRegionScans, IndexedSeq[Array[Cell]])] => T): T = {
    val balancing = withAdmin(_.balancerSwitch(false, true))
    try rawScans(body)
    finally if (balancing) withAdmin(_.balancerSwitch(true, false))
  }

  private def rawScans[T](body: IndexedSeq[(RawRegionScans, IndexedSeq[Array[Cell]])] => T): T =
    HBaseConnections.withConnection(cluster) { c =>
      def regionOf(name: String) =
        new RawRegionScans(c.asInstanceOf[ClusterConnection], TableName.valueOf(name), CallTimeoutMillis)
      val targets = IndexedSeq(table, packedTable).map { name =>
        val raw = regionOf(name)
        val rows = raw.scan(new Scan()).fold(e => fail(e), _.map(_.rawCells()).toIndexedSeq)
        rows should have size 120
        (name, raw, rows, raw.server)
      }
      val result = body(targets.map { case (_, raw, rows, _) => (raw, rows) })
      for ((name, raw, rows, startedAs) <- targets) {
        withClue(s"the region server of $name still runs, the same process, and serves a plain scan: ") {
          val live = withAdmin(_.getClusterMetrics.getLiveServerMetrics.keySet.asScala)
          live should contain(startedAs)
          regionOf(name).server shouldBe startedAs
          raw.scan(new Scan()).map(viewResults) shouldBe Right(view(rows.flatMap(_.toSeq)))
        }
      }
      result
    }

  /** A refusal must be quick and name the problem as the parser does; a timeout is a hung handler. */
  private def refusedClearly(message: String, parserMessage: String, what: String): Unit = {
    message should not include "Timeout"
    withClue(s"$what: the parser names the problem: ")(Option(parserMessage).getOrElse("") should not be empty)
    // The jar's build version differs between this JVM's classes and the region server's jar.
    def unversioned(m: String) = m.replaceAll("server jar \\([^)]*\\)", "server jar")
    withClue(s"$what: the refusal names the problem: ")(unversioned(message) should include(unversioned(parserMessage)))
  }

  describe("the filter's wire format in a region server") {
    it(
      s"refuses the bytes it cannot parse, and reads exactly what the bytes it can parse say ($FilterPayloads payloads and more)"
    ) {
      val seeds = filterSeeds
      seeds.size should be >= 8
      val random = new Random(19)
      val payloads = fuzz(seeds, handmadeFilters, FilterPayloads, random)
      val tally = new Tally
      val started = System.nanoTime()
      withRawScans { targets =>
        payloads.zipWithIndex.foreach { case ((kind, bytes), i) =>
          val (raw, rows) = targets(i % targets.size)
          val what = s"$kind ${Bytes.toStringBinary(bytes.take(80))}"
          val parsed = Try(SkipScanFilter.parseFrom(bytes))
          val answer = raw.scan(new Scan(), Some(classOf[SkipScanFilter].getName -> bytes))
          (parsed, answer) match {
            case (Failure(e), Left(message)) =>
              refusedClearly(message, e.getMessage, what)
              tally(kind, "refused")
            case (Failure(e), Right(_)) => fail(s"$what: rows for bytes that do not parse (${e.getMessage})")
            case (Success(filter), Right(results)) =>
              withClue(s"$what as $filter: ")(viewResults(results) shouldBe view(LocalFilterRun(filter, rows).flatten))
              tally(kind, "accepted")
            case (Success(filter), Left(message)) =>
              message should not include "Timeout"
              withClue(s"$what as $filter failed in the region server ($message), so it must fail here: ") {
                Try(LocalFilterRun(filter, rows)).isFailure shouldBe true
              }
              tally(kind, "failed while reading")
          }
        }
      }
      info(f"${payloads.size} filter payloads in ${(System.nanoTime() - started) / 1e9}%.1f s: $tally")
      tally.of("refused") should be > payloads.size / 10
      withClue("mutated payloads that still parse are read: ")(
        (tally.of("accepted") - tally.ofKind("seed", "accepted")) should be > 100
      )
      tally.ofKind("other wire version", "refused") should be > 0
    }
  }

  describe("the aggregation's wire format in a region server") {
    it(
      s"refuses the bytes it cannot parse, answers another wire version with plain rows, and aggregates exactly what the bytes it can parse say ($AggregatePayloads payloads and more)"
    ) {
      val seeds = aggregateSeeds
      seeds.size should be >= 4
      val random = new Random(1919)
      val payloads = fuzz(seeds.map(_._1), handmadeAggregates, AggregatePayloads, random)
      val tally = new Tally
      val started = System.nanoTime()
      withRawScans { targets =>
        payloads.zipWithIndex.foreach { case ((kind, bytes), i) =>
          val (raw, rows) = targets(i % targets.size)
          val what = s"$kind ${Bytes.toStringBinary(bytes.take(80))}"
          val scan = new Scan().setAttribute(AggregateSpec.ATTRIBUTE, bytes)
          val parsed = Try(AggregateSpec.parseFrom(bytes))
          val answer = raw.scan(scan)
          (parsed, answer) match {
            case (Failure(_: WireVersionRefused), answer) =>
              withClue(s"$what: another version is a plain scan: ")(answer.map(viewResults) shouldBe
                Right(view(rows.flatMap(_.toSeq))))
              tally(kind, "read as a plain scan")
            case (Failure(e), Left(message)) =>
              refusedClearly(message, e.getMessage, what)
              tally(kind, "refused")
            case (Failure(e), Right(_)) => fail(s"$what: rows for bytes that do not parse (${e.getMessage})")
            case (Success(spec), answer) =>
              val local = Try(foldHere(spec, rows))
              (local, answer) match {
                case (Success(expected), Right(results)) =>
                  withClue(s"$what as $spec: ")(sameGroups(groups(spec, results), expected))
                  tally(kind, "accepted")
                case (Failure(_), Left(message)) =>
                  message should not include "Timeout"
                  message should include("aggregation failed")
                  tally(kind, "failed while reading")
                case (expected, answer) => fail(s"$what as $spec: the region server said $answer, this JVM $expected")
              }
          }
        }
      }
      info(f"${payloads.size} aggregation payloads in ${(System.nanoTime() - started) / 1e9}%.1f s: $tally")
      tally.of("refused") should be > payloads.size / 10
      withClue("mutated payloads that still parse are aggregated: ")(
        (tally.of("accepted") - tally.ofKind("seed", "accepted")) should be > 100
      )
      tally.of("read as a plain scan") should be > 0
    }
  }

  describe("the top-n's wire format in a region server") {
    it(
      s"refuses the bytes it cannot parse, answers another wire version with every row, and keeps n of the smallest rows by what the bytes it can parse say ($TopNPayloads payloads and more)"
    ) {
      val seeds = topNSeeds
      seeds.size should be >= 4
      val random = new Random(3636)
      val payloads = fuzz(seeds, Nil, TopNPayloads, random)
      val tally = new Tally
      val started = System.nanoTime()
      withRawScans { targets =>
        payloads.zipWithIndex.foreach { case ((kind, bytes), i) =>
          val (raw, rows) = targets(i % targets.size)
          val what = s"$kind ${Bytes.toStringBinary(bytes.take(80))}"
          val parsed = Try(TopNSpec.parseFrom(bytes))
          val answer = raw.scan(new Scan().setAttribute(TopNSpec.ATTRIBUTE, bytes))
          (parsed, answer) match {
            case (Failure(_: WireVersionRefused), answer) =>
              withClue(s"$what: another version is a plain scan: ")(answer.map(viewResults) shouldBe
                Right(view(rows.flatMap(_.toSeq))))
              tally(kind, "read as a plain scan")
            case (Failure(e), Left(message)) =>
              refusedClearly(message, e.getMessage, what)
              tally(kind, "refused")
            case (Failure(e), Right(_)) => fail(s"$what: rows for bytes that do not parse (${e.getMessage})")
            case (Success(spec), Right(results)) =>
              withClue(s"$what as $spec: ")(keepsTopN(spec, rows, results))
              tally(kind, "accepted")
            case (Success(spec), Left(message)) =>
              fail(s"$what as $spec: the region server failed ($message)")
          }
        }
      }
      info(f"${payloads.size} top-n payloads in ${(System.nanoTime() - started) / 1e9}%.1f s: $tally")
      tally.of("refused") should be > payloads.size / 10
      withClue("mutated payloads that still parse keep a top-n: ")(
        (tally.of("accepted") - tally.ofKind("seed", "accepted")) should be > 100
      )
      tally.ofKind("other wire version", "read as a plain scan") should be > 0
    }
  }

  /**
   * What a region server's top-n must send, judged here by sorting every row of the region: whole
   * rows of the region, in row key order; when a row is bad (its key fails the spec's check, or a
   * packed cell is malformed), the first one among them; otherwise n rows (or all) whose sort values
   * are the n smallest.
   */
  private def keepsTopN(spec: TopNSpec, rows: IndexedSeq[Array[Cell]], results: Seq[Result]): Unit = {
    def judged(row: Array[Cell]): (Boolean, Array[Array[Byte]]) = {
      val key = CellUtil.cloneRow(row.head)
      val operands = new RowOperands(spec.layout, spec.operands)
      operands.reset(key)
      row.foreach(operands.capture)
      val bad = operands.malformed() || (spec.keyCheck != null && !spec.keyCheck.accepts(key))
      (bad, spec.sortBy.map(operands.value))
    }
    val returned = results.map(_.rawCells())
    val whole = rows.map(r => view(r.toSeq)).toSet
    returned.foreach(r => withClue("a whole row of the region: ")(whole should contain(view(r.toSeq))))
    val keys = returned.map(r => Bytes.toStringBinary(CellUtil.cloneRow(r.head)))
    withClue("in row key order: ")(keys shouldBe returned.map(r => CellUtil.cloneRow(r.head))
      .sortWith(Bytes.compareTo(_, _) < 0).map(Bytes.toStringBinary))
    val all = rows.map(judged)
    rows.indices.find(all(_)._1) match {
      case Some(firstBad) => keys should contain(Bytes.toStringBinary(CellUtil.cloneRow(rows(firstBad).head)))
      case None =>
        val order: Ordering[Array[Array[Byte]]] = (x, y) => spec.compare(x, y)
        def comparable(values: Seq[Array[Array[Byte]]]) = values.sorted(order).map(_.toSeq.map(Option(_).map(_.toSeq)))
        returned should have size math.min(spec.maxRows, rows.size).toLong
        comparable(returned.map(judged(_)._2)) shouldBe comparable(all.map(_._2)).take(spec.maxRows)
    }
  }

  /**
   * Batches as comparable text: the rows folded in, each group's key and aggregate states, and the
   * failure if any. A region that held more groups than the spec's cap sends a key in several
   * batches, each with part of its states: then only the keys are compared.
   */

  private def render(value: Any): String = value match {
    case null => "NULL"
    case b: Array[Byte] => Bytes.toStringBinary(b)
    case states: Array[_] => states.map(render).mkString("[", ", ", "]")
    case other => other.toString
  }

  private def asGroups(batches: Seq[AggregateBatch]): Either[String, Groups] =
    (batches.flatMap(b => Option(b.failure)).headOption, batches.flatMap(b => Option(b.badKey)).headOption) match {
      case (Some(failure), _) => Left(failure.getMessage) // the rows after it were not read
      case (_, Some(row)) => Left(s"bad row ${Bytes.toStringBinary(row)}") // nor after a row that is not the table's
      case _ =>
        val pairs = batches.flatMap { b =>
          b.keys.asScala.map(_.toSeq.map(render)).zip(b.states.asScala.map(_.toSeq.map(render)))
        }
        val keys = pairs.map(_._1)
        Right(Groups(
          batches.map(_.rowsScanned).sum,
          keys.toSet,
          Some(pairs.toMap).filter(_ => keys.distinct.size == keys.size)
        ))
    }

  private def foldHere(spec: AggregateSpec, rows: IndexedSeq[Array[Cell]]): Either[String, Groups] = {
    val aggregator = new RowAggregator(spec)
    rows.foreach(_.foreach(aggregator.add))
    aggregator.endOfRows()
    asGroups(Seq(AggregateBatch.read(spec, aggregator.takeBatch())))
  }

  private def sameGroups(server: Either[String, Groups], local: Either[String, Groups]): Unit = (server, local) match {
    case (Right(s), Right(l)) =>
      s.rowsScanned shouldBe l.rowsScanned
      s.keys shouldBe l.keys
      s.states.foreach(_ shouldBe l.states.get)
    case _ => server shouldBe local
  }

  private def groups(spec: AggregateSpec, results: Seq[Result]): Either[String, Groups] = {
    results.foreach(r => withClue("every result is a batch: ")(AggregateBatch.isBatch(r) shouldBe true))
    asGroups(results.map(AggregateBatch.read(spec, _)))
  }
}

object WireFuzzSpec {
  final case class Groups(rowsScanned: Long, keys: Set[Seq[String]], states: Option[Map[Seq[String], Seq[String]]])
}
