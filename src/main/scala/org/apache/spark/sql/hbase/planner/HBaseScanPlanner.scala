// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}
import org.apache.spark.sql.hbase.common.HBaseSQLConf
import org.apache.spark.sql.hbase.codec.KeyCodec
import org.apache.spark.sql.hbase.server.ServerJar
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.hbase.logical.HBaseRelation

/** The session settings that shape a scan plan. */
final case class ScanSettings(
    pushdown: Boolean,
    customFilter: Boolean,
    maxKeyRanges: Int,
    fetchSize: Int,
    driverReadMaxKeyRanges: Int,
    rangeIndex: Boolean = true,
    driverReadMaxRows: Long = 0,
    skipBadRowKeys: Boolean = false,
    wireVersion: Int = ServerJar.WIRE_VERSION,
    topNMaxRows: Int = 0,
    globalIndex: Boolean = true,
    globalIndexMaxRows: Int = 100000,
    globalIndexCovering: Boolean = true,
    globalIndexRecentWrites: Long = 120000L,
    globalIndexReadPartBytes: Long = 0L,
    taskMaxBytes: Long = 0,
    minTasks: Int = 1
)

object ScanSettings {

  /** The settings of `conf`, for a Spark application whose default parallelism is `parallelism`. */
  def of(conf: SQLConf, parallelism: Int): ScanSettings = ScanSettings(
    pushdown = conf.getConf(HBaseSQLConf.Pushdown),
    customFilter = conf.getConf(HBaseSQLConf.CustomFilter),
    maxKeyRanges = conf.getConf(HBaseSQLConf.MaxKeyRanges),
    fetchSize = conf.getConf(HBaseSQLConf.ScannerFetchSize),
    driverReadMaxKeyRanges = conf.getConf(HBaseSQLConf.DriverReadMaxKeyRanges),
    rangeIndex = conf.getConf(HBaseSQLConf.IndexEnabled),
    driverReadMaxRows = conf.getConf(HBaseSQLConf.DriverReadMaxRows),
    skipBadRowKeys = conf.getConf(HBaseSQLConf.BadRowKeys) == "skip",
    wireVersion = conf.getConf(HBaseSQLConf.WireVersion),
    topNMaxRows = conf.getConf(HBaseSQLConf.TopNPerRegionMaxRows),
    globalIndex = conf.getConf(HBaseSQLConf.GlobalIndexEnabled),
    globalIndexMaxRows = conf.getConf(HBaseSQLConf.GlobalIndexMaxRows),
    globalIndexCovering = conf.getConf(HBaseSQLConf.GlobalIndexCovering),
    globalIndexRecentWrites = conf.getConf(HBaseSQLConf.GlobalIndexRecentWrites),
    globalIndexReadPartBytes = conf.getConf(HBaseSQLConf.GlobalIndexReadPartBytes),
    taskMaxBytes = conf.getConf(HBaseSQLConf.ScanTaskMaxBytes),
    minTasks = parallelism
  )
}

/**
 * Plans a read of one HBase table from start to finish, as pure functions of the query, the
 * settings and the table's facts:
 *  1. key ranges: the WHERE clause partially evaluated over the row key ([[KeyRangePlanner]]);
 *  2. range indexes: the chunks of the key ranges whose statistics rule the clause out are cut
 *     out of them ([[ChunkPruning]]);
 *  3. regions: those the ranges touch, each with the residual its own ranges leave ([[RegionsRead]]);
 *  4. region servers: key boxes for the skip scan and the conjuncts they check ([[KeyBoxes]],
 *     [[ServerPredicates]]), in each region whose region server runs the server jar ([[serverJarUse]]);
 *  5. where a collect reads: on the driver for lookups, single regions, and the few rows a
 *     range index leaves;
 *  6. how much each region returns: a LIMIT with no filter below it caps every region, and an
 *     ORDER BY ... LIMIT has each region server return only its region's top rows ([[TopNPerRegion]]);
 *  7. the order rows come in: by the row key, as far as the output holds its leading columns;
 *  8. the families read only from a time on, by lower bounds on write times ([[WrittenSince]]);
 *  9. a global index that names the rows to read, where the key ranges leave a scan ([[IndexLookup]]),
 *     or whose order an ORDER BY ... LIMIT reads its rows in ([[IndexOrder]]);
 * 10. how many Spark tasks read the regions: a task each, or fewer for a read small for its
 *     regions ([[RegionTasks]]).
 */
object HBaseScanPlanner {

  /**
   * The finished plan of a scan, with the bytes of each region's server filter.
   *
   * @param read      the attributes decoded from HBase, in this order
   * @param output    those of them that leave the scan
   * @param condition the WHERE clause the scan applies
   */
  def plan(
      relation: HBaseRelation,
      read: Seq[Attribute],
      output: Seq[Attribute],
      condition: Option[Expression],
      settings: ScanSettings,
      facts: TableFacts
  ): TableScanPlan = finish(shape(relation, read, output, condition, settings, facts))

  /**
   * A shaped plan as a scan reads it: a region whose server cannot run the plan's filter is read
   * without it from the start, and every other region's filter is written as bytes.
   */
  def finish(shaped: TableScanPlan): TableScanPlan =
    RegionRequests.withFilters(shaped.copy(regions = shaped.regions.map { r =>
      if (shaped.withoutServerJar(r.region.serverName)) r.withoutServer else r
    }))

  /**
   * The plan of a scan without the bytes its regions would be sent: what a pushed aggregate
   * starts from, which sends bytes of its own ([[AggregatePushdown]]); a scan read as it stands
   * has them written by [[RegionRequests.withFilters]].
   */
  def shape(
      relation: HBaseRelation,
      read: Seq[Attribute],
      output: Seq[Attribute],
      condition: Option[Expression],
      settings: ScanSettings,
      facts: TableFacts
  ): TableScanPlan = {
    val table = relation.table
    val codec = KeyCodec.forTable(table)
    val keyRanges = condition.filter(_ => settings.pushdown).fold[KeyRanges](KeyRanges.FullScan) { where =>
      KeyRangePlanner.plan(
        relation.prunableKeys,
        codec.prunableKeyColumns,
        codec.canRange,
        where,
        settings.maxKeyRanges
      )
    }
    val keys = if (settings.pushdown) relation.prunableKeys else Nil
    val keyRows = RowRanges(keyRanges, codec)
    // An index describes the rows as they are now, not as they were.
    val (rows, indexUses) = condition.filter(_ => settings.pushdown && settings.rangeIndex && relation.asOf.isEmpty)
      .fold((keyRows, Seq.empty[RangeIndexUse]))(where => byRangeIndexes(relation, where, keyRows, facts))
    val narrowed = if (indexUses.isEmpty) None else Some(rows)
    val regions = RegionsRead(facts.regions, keyRanges, keys, codec, condition, narrowed)
    // Asked only when region servers would filter: a plan that prunes every region probes nothing.
    val (wireVersion, withoutJar) =
      if (!settings.pushdown || !settings.customFilter || regions.regions.isEmpty) (None, Set.empty[String])
      else {
        val read = regions.regions.map(_.region)
        serverJarUse(read.map(_.serverName), facts.serverFilter(read), settings.wireVersion)
      }
    val withServers =
      if (wireVersion.isEmpty) regions
      else {
        val boxes = KeyBoxes(keyRanges, condition, relation.keyAttributes, codec, settings.maxKeyRanges)
        regions.withServerFilters(
          narrowed.fold(boxes)(KeyBoxes.within(boxes, _)),
          new ServerPredicates(table, codec, relation.columnOf, wireVersion.get).pushable
        )
      }
    val columns = read.map(relation.columnOf)
    val writtenSince = condition.filter(_ => settings.pushdown).fold(Map.empty[String, Long]) { where =>
      def columnOf(a: Attribute) = relation.output.find(_.exprId == a.exprId).map(relation.columnOf)
      WrittenSince.plan(where, (columns ++ where.references.toSeq.flatMap(columnOf)).distinct, columnOf)
    }
    val request = ScanRequest(
      table,
      relation.cluster,
      read,
      columns,
      output,
      ScanLimits(settings.fetchSize, relation.limit),
      relation.asOf,
      writtenSince,
      settings.skipBadRowKeys,
      wireVersion.getOrElse(ServerJar.WIRE_VERSION)
    )
    val topN = relation.topN.flatMap { wanted =>
      TopNPerRegion.plan(
        wanted,
        relation,
        request,
        withServers.regions,
        settings.topNMaxRows,
        AggregatePushdown.sliceMillis(relation.cluster.settings),
        facts
      )
    }
    val keyOrder =
      if (codec.preservesOrder) relation.keyAttributes.takeWhile(k => output.exists(_.exprId == k.exprId)) else Nil
    val max = settings.driverReadMaxKeyRanges
    val driverRead = max > 0 &&
      (withServers.regions.size <= 1 || (keyRanges.lookups && withServers.rowRanges <= max) ||
        indexUses.flatMap(_.rowsAtMost).minOption.exists(_ <= settings.driverReadMaxRows))
    // An index describes the rows as they are now, not as of a time; a region's top rows need none.
    val weighed = condition.filter(_ =>
      settings.pushdown && settings.globalIndex && relation.asOf.isEmpty && topN.isEmpty
    ).flatMap(IndexLookup.choose(
      relation,
      _,
      read,
      settings.maxKeyRanges,
      settings.globalIndexMaxRows,
      keyRanges.lookups,
      settings.globalIndexCovering
    ))
      .map { lookup =>
        val tableBytes = relation.sizeInBytes.map(_ * withServers.regions.size / math.max(1, withServers.regionsTotal))
        val index = facts.globalIndexTable(lookup.index)
        IndexLookup.weigh(lookup, index, tableBytes).map(_.withSplits(index, settings.globalIndexReadPartBytes))
      }
    val indexLookup = weighed.flatMap(_.toOption)
      .map(_.copy(driverReadWithout = driverRead, recentWritesMillis = settings.globalIndexRecentWrites))
    // A join on an index's leading column may narrow a scan that neither a lookup by key nor an index narrows.
    val joinIndexes =
      if (
        !settings.pushdown || !settings.globalIndex || relation.asOf.isDefined || topN.isDefined ||
        indexLookup.isDefined || keyRanges.lookups
      ) Nil
      else IndexLookup.forJoins(relation, read, settings.globalIndexMaxRows, settings.globalIndexCovering)
        .map(_.copy(recentWritesMillis = settings.globalIndexRecentWrites))
    // An ORDER BY ... LIMIT led by an indexed column that no lookup narrows reads, when collected, in the index's order.
    val indexOrder = relation.topN.filter(_ =>
      settings.pushdown && settings.globalIndex && relation.asOf.isEmpty && indexLookup.isEmpty && !keyRanges.lookups
    ).flatMap(IndexOrder.plan(
      relation,
      _,
      condition,
      read,
      settings.maxKeyRanges,
      settings.globalIndexMaxRows,
      settings.globalIndexCovering
    )).map(o => o.copy(lookup = o.lookup.copy(recentWritesMillis = settings.globalIndexRecentWrites)))
    val oneTask = indexLookup.exists(_.covering) && withServers.regions.size > 1
    TableScanPlan(
      request.copy(topN = topN),
      keyRanges,
      withServers.regions,
      withServers.regionsTotal,
      driverRead || indexLookup.isDefined,
      indexUses,
      keyOrder,
      wholeKey = keyOrder.size == relation.keyAttributes.size,
      withoutServerJar = withoutJar,
      indexLookup = indexLookup,
      indexDeclined = weighed.flatMap(_.left.toOption),
      oneTask = oneTask,
      joinIndexes = joinIndexes,
      indexOrder = indexOrder,
      tasks = if (oneTask) None
      else RegionTasks.plan(
        withServers.regions.size,
        relation.sizeInBytes.map(_ / math.max(1, withServers.regionsTotal)),
        settings.taskMaxBytes,
        settings.minTasks
      )
    )
  }

  /**
   * The wire version the region servers are sent, and the servers whose regions are read without
   * the server jar, given the servers of the regions read and what each said (`versions`, see
   * [[TableFacts.serverFilter]]): the newest version a server runs, up to `newest`, or the
   * newest itself when none has said; none when each refused. A server that refused, or runs
   * only older versions, has its regions read without the jar; one that has not said is tried.
   */
  def serverJarUse(servers: Seq[String], versions: Map[String, Option[Int]], newest: Int)
      : (Option[Int], Set[String]) = {
    val said = servers.distinct.flatMap(s => versions.get(s).map(s -> _))
    val version =
      if (said.nonEmpty && said.size == servers.distinct.size && said.forall(_._2.isEmpty)) None
      else Some(said.flatMap(_._2).maxOption.fold(newest)(_ min newest))
    (version, said.collect { case (s, v) if v.forall(n => version.forall(n < _)) => s }.toSet)
  }

  /** The rows left once each built range index over a column of the clause has cut out its ruled-out chunks. */
  private def byRangeIndexes(
      relation: HBaseRelation,
      where: Expression,
      rows: RowRanges,
      facts: TableFacts
  ): (RowRanges, Seq[RangeIndexUse]) = {
    def nameOf(a: Attribute) = relation.output.find(_.exprId == a.exprId).map(relation.columnOf(_).name)
    val referenced = where.references.toSeq.flatMap(nameOf).toSet
    relation.table.indexes.filter(i => i.isReady && i.columns.exists(referenced)).foldLeft((
      rows,
      Seq.empty[RangeIndexUse]
    )) {
      case ((current, uses), index) =>
        val chunks = facts.rangeIndex(index)
        val pruned = ChunkPruning.prune(current, chunks.trusted, where, a => nameOf(a).filter(index.columns.contains))
        def touching(ranges: RowRanges) = chunks.chunks.count(c => ranges.overlaps(c.range))
        val read = touching(pruned.ranges)
        // Chunks tile the key space: when every one the ranges meet is trusted, their rows bound the read.
        val readTrusted = chunks.trusted.filter(c => pruned.ranges.overlaps(c.range))
        val rowsAtMost = if (readTrusted.size == read) Some(readTrusted.map(_.rowCount).sum) else None
        (
          pruned.ranges,
          uses :+ RangeIndexUse(index.name, read, chunks.total, touching(current) - read, chunks.untrusted, rowsAtMost)
        )
    }
  }
}
