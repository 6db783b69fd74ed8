// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.apache.spark.sql.catalyst.expressions.{And, Attribute, Expression}
import org.apache.spark.sql.hbase.logical.HBaseRelation
import org.apache.spark.sql.hbase.metadata.{HBaseColumn, HBaseTableDef}
import org.apache.spark.sql.hbase.connection.HBaseClusterConf
import org.apache.spark.sql.hbase.server.ServerJar

/** How much one region's scanner fetches per round trip, and at most in all. */
final case class ScanLimits(caching: Int, maxRows: Option[Int])

/**
 * What every region of one scan reads: the attributes `read`, stored as table `columns`, of
 * which `emitted` leave the scan; with `asOf` (epoch milliseconds), each cell's newest version
 * written at or before that time. The families in `writtenSince` are read only from the epoch
 * milliseconds given, up to `asOf`. A row whose key is not a key of the table (another tool's)
 * fails the read, or with `skipBadRowKeys` is left out and counted. What region servers are
 * sent is written in `wireVersion`, the newest their jar and this client share. A `reversed`
 * read returns each region's rows from the highest key down. With `topN`, each region scanned
 * through the server jar returns only its top rows in the query's order.
 */
final case class ScanRequest(
    table: HBaseTableDef,
    cluster: HBaseClusterConf,
    read: Seq[Attribute],
    columns: Seq[HBaseColumn],
    emitted: Seq[Attribute],
    limits: ScanLimits,
    asOf: Option[Long] = None,
    writtenSince: Map[String, Long] = Map.empty,
    skipBadRowKeys: Boolean = false,
    wireVersion: Int = ServerJar.WIRE_VERSION,
    reversed: Boolean = false,
    topN: Option[TopNPerRegion] = None
) {

  def columnOf(attribute: Attribute): HBaseColumn = columns(read.indexWhere(_.exprId == attribute.exprId))

  /** The columns whose cells a region server sends back: the output's, and those Spark still checks. */
  def returnedColumns(residual: Option[Expression]): Seq[HBaseColumn] =
    (emitted ++ residual.toSeq.flatMap(_.references)).map(columnOf).distinct
}

/**
 * A finished scan of one HBase table: which regions it reads out of the table's, what each
 * region reads and checks (in the region server and in Spark), and whether a collect reads it
 * on the driver. Execution carries it out as it stands; nothing is looked up or decided after
 * planning. The steps left for run time are planned too, and EXPLAIN shows them: with
 * `joinKeys`, the keys a join's other side holds, once it has run, narrow the rows read
 * ([[JoinKeys.narrow]]); with `indexLookup`, the data rows a global index names ([[IndexLookup.narrow]]).
 *
 * @param keyRanges    the critical key ranges the WHERE clause allows, as planned
 * @param regions      each region read, in key order, with its part of the rows
 * @param regionsTotal how many regions the table has
 * @param driverRead   a collect or take reads the regions on the driver, without a Spark job
 * @param rangeIndexes the range indexes that narrowed the rows read
 * @param keyOrder     the output's leading key attributes, by which each region's rows come sorted
 *                     (its regions come in key order too): ascending, or descending when the
 *                     request is reversed
 * @param wholeKey     whether `keyOrder` is the whole key, so that no two regions share a value of it
 * @param alignment    when the scan is read beside another's in ranges of the leading key
 *                     column, which regions each partition reads
 * @param joinKeys     when a join's other side narrows the rows read at run time, how
 * @param indexLookup  when a global index names the rows read at run time, which and how
 * @param indexDeclined why a global index the WHERE clause could use is not, for EXPLAIN
 * @param joinIndexes  the global indexes a join on their leading column may look its other
 *                     side's values up in, each a lookup whose key ranges run time gives
 * @param indexOrder   when a collect of the query's ORDER BY ... LIMIT reads the rows in the
 *                     order of a global index, a batch at a time, which and how
 * @param oneTask      every region is read in one Spark partition, in key order: a covering
 *                     index answers for few rows, and a job of one task needs no exchange above
 *                     it (an aggregate over it is one stage)
 * @param tasks        when a read is small for its regions, how many consecutive regions each
 *                     Spark task reads; otherwise a task per region
 * @param withoutServerJar the region servers (by `RegionInfo.serverName`) whose regions are read
 *                     without the server jar: they refused it, or read only an older wire
 *                     version than the plan's
 */
final case class TableScanPlan(
    request: ScanRequest,
    keyRanges: KeyRanges,
    regions: Seq[RegionScan],
    regionsTotal: Int,
    driverRead: Boolean,
    rangeIndexes: Seq[RangeIndexUse] = Nil,
    keyOrder: Seq[Attribute] = Nil,
    wholeKey: Boolean = false,
    alignment: Option[KeyAlignment] = None,
    joinKeys: Option[JoinKeys] = None,
    withoutServerJar: Set[String] = Set.empty,
    indexLookup: Option[IndexLookup] = None,
    indexDeclined: Option[String] = None,
    oneTask: Boolean = false,
    joinIndexes: Seq[IndexLookup] = Nil,
    indexOrder: Option[IndexOrder] = None,
    tasks: Option[RegionTasks] = None
) {

  def regionsWithoutServerJar: Int = regions.count(r => withoutServerJar(r.region.serverName))

  /** The regions read on servers not known to lack the server jar, in key order. */
  def regionsWithServerJar: Seq[RegionInfo] = regions.map(_.region).filterNot(r => withoutServerJar(r.serverName))

  def chunksSkipped: Int = rangeIndexes.map(_.chunksSkipped).sum

  /** Row key ranges read, over all regions. */
  def rowRanges: Int = regions.map(_.ranges.size).sum
  def gets: Int = regions.filter(_.byGets).map(_.ranges.size).sum
  def scans: Int = regions.count(!_.byGets)

  /** The plan with no region returning more than `n` rows. */
  def limitedTo(n: Int): TableScanPlan =
    copy(request = request.copy(limits = request.limits.copy(maxRows = Some(request.limits.maxRows.fold(n)(_ min n)))))

  /** The plan whose rows a join's other side narrows at run time to at most `maxKeys` of its keys. */
  def withJoinKeys(maxKeys: Int, throughIndex: Option[IndexLookup] = None): TableScanPlan =
    copy(joinKeys = Some(JoinKeys(maxKeys, throughIndex)))

  /** The regions in the order their rows come: the key's, or the reverse for a reversed read. */
  def readOrder: Seq[RegionScan] = if (request.reversed) regions.reverse else regions

  /**
   * The regions a read on the driver reads, in read order: those with anything to read. Where
   * every one reads only by Gets or covered rows (no server filter, one residual) and there are
   * few Gets ([[TableScanPlan.FewGets]], and no more than one call takes), they are read as one
   * region: HBase's client sends one call per region server for them, where a region each costs
   * a call each (the rows a global index names lie all over the table).
   */
  def driverReadOrder: Seq[RegionScan] = {
    // A region with only covered rows reads nothing from HBase: its rows are checked against it all.
    val reading = regions.filterNot(_.readsNothing).map(r => if (r.ranges.isEmpty) r.withoutServer else r)
    val first = reading.headOption
    val asOne = reading.size > 1 &&
      reading.map(_.ranges.size).sum <= math.min(request.limits.caching, TableScanPlan.FewGets) &&
      reading.flatMap(_.covered).map(_.index).distinct.size <= 1 &&
      reading.forall(r => r.byGets && r.server.isEmpty && r.residual == first.get.residual)
    if (!asOne) readOrder.filterNot(_.readsNothing)
    else {
      val servers = reading.map(r => (r.region.host, r.region.port, r.region.startCode)).distinct
      val (host, port, startCode) = if (servers.size == 1) servers.head else (None, None, None)
      val covered = reading.flatMap(_.covered)
      Seq(
        RegionScan(
          RegionInfo(first.get.region.startKey, reading.last.region.endKey, host, port, startCode),
          reading.flatMap(_.ranges),
          first.get.residual,
          covered = covered.headOption.map(c => c.copy(rows = covered.flatMap(_.rows)))
        )
      )
    }
  }

  /**
   * What each Spark partition reads, in read order: a region each, unless aligned with another
   * scan, read in one task, or shared out among fewer tasks.
   */
  def partitions: Seq[Seq[RegionScan]] = alignment match {
    case Some(aligned) => aligned.partitions(regions)
    case None if oneTask => Seq(readOrder)
    case None => tasks.fold(readOrder.map(Seq(_))) { t =>
        val grouped = t.group(regions)
        if (request.reversed) grouped.reverse.map(_.reverse) else grouped
      }
  }

  /** How the regions are shared out among tasks, as EXPLAIN shows it, when not a task each. */
  def describeTasks: String =
    if (alignment.isDefined) ""
    else if (oneTask) ", in one task"
    else tasks.fold("")(_.describe)

  /**
   * Whether the plan can be read from the highest key down: each region reads one range, or
   * whole keys, and its region server does not seek between key boxes (which it does upwards).
   */
  def reversible: Boolean = alignment.isEmpty &&
    regions.forall(r => (r.ranges.size == 1 || r.byGets) && r.server.forall(_.boxes.isEmpty))

  /** The plan read from the highest key down; a region server's top-n comes in key order, so it goes. */
  def reversedRead: TableScanPlan = copy(request = request.copy(reversed = true, topN = None))

  /** The plan on one line, as EXPLAIN shows it. */
  def describe: String = {
    val (read, output) = (request.read, request.emitted)
    s"HBaseTableScan $describeReads$describeAlignment$describeTasks, columns [${output.map(_.name).mkString(", ")}]" +
      (if (read != output) s", reads [${read.map(_.name).mkString(", ")}]" else "") +
      request.limits.maxRows.fold("")(n => s", limit $n") + (if (request.reversed) ", reversed" else "") +
      request.topN.fold("")(t => s", ${t.describe}") + joinKeys.fold("")(k => s", ${k.describe}") +
      indexLookup.fold("")(i => s", ${i.describe}") + indexDeclined.fold("")(d => s", $d") +
      indexOrder.fold("")(o => s", ${o.describe}")
  }

  /** How the partitions are cut, when aligned with another scan. */
  def describeAlignment: String = alignment.fold("") { a =>
    s", aligned by ${a.key.name} in ${a.ranges.size} key ranges"
  }

  /** The table, the regions, ranges and HBase calls, and where the WHERE clause is checked. */
  def describeReads: String = {
    val table = request.table
    val ranges = keyRanges match {
      case KeyRanges.FullScan => "full scan"
      case KeyRanges.Ranges(rs) =>
        s"${rs.size} key ranges ${rs.take(3).mkString(", ")}${if (rs.size > 3) ", ..." else ""}"
    }
    // Regions share their conjuncts: each distinct one is written once, and cut short when long.
    def perRegion(parts: Seq[Seq[Expression]]): String = parts.distinct.map(conjunction) match {
      case Seq() => "none"
      case Seq(one) => one
      case many => s"per region: ${many.take(3).mkString("; ")}${if (many.size > 3) "; ..." else ""}"
    }
    def conjunction(parts: Seq[Expression]) =
      parts.reduceOption(And).fold("none")(e => TableScanPlan.abbreviated(e.sql))
    val residual = perRegion(regions.map(r => r.server.toSeq.flatMap(_.pushed) ++ r.residual))
    val server = regions.flatMap(_.server)
    val serverPart = if (server.isEmpty) ""
    else {
      val boxes = server.flatMap(_.boxes).flatten.distinct
      val skip =
        if (boxes.isEmpty) "" else s", skip scan ${boxes.take(3).mkString(", ")}${if (boxes.size > 3) ", ..." else ""}"
      s"$skip, in region servers ${perRegion(server.map(_.pushed))}"
    }
    val indexes = rangeIndexes.map(u => s", $u").mkString
    val withoutJar = regionsWithoutServerJar match {
      case 0 => ""
      case n => s", $n ${if (n == 1) "region" else "regions"} read without the server jar"
    }
    val asOf = request.asOf.fold("")(millis => s" as of ${HBaseRelation.describeAsOf(millis)}")
    val since = request.writtenSince.toSeq.sortBy(_._1)
      .map { case (family, millis) => s", family $family written since ${HBaseRelation.describeAsOf(millis)}" }.mkString
    s"${table.described}$asOf regions ${regions.size} of $regionsTotal, $ranges$indexes, " +
      s"$gets Gets and $scans scans$since, residual $residual$serverPart$withoutJar"
  }
}

object TableScanPlan {

  /**
   * The most Gets a read on the driver sends in one call for several regions. A region server
   * answers one call's Gets one after another (about 100 µs each for a row of nine cells), so
   * more go region by region, at once, to as many of its handlers.
   */
  val FewGets = 100

  /** EXPLAIN shows this much of a condition: an IN list of 100,000 keys would fill pages. */
  val MaxConditionText = 1000

  def abbreviated(text: String): String =
    if (text.length <= MaxConditionText) text
    else s"${text.take(MaxConditionText)}... (${text.length - MaxConditionText} more characters)"
}
