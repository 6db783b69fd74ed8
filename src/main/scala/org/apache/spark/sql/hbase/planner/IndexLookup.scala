// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, Literal, PredicateHelper}
import org.apache.spark.sql.hbase.codec.{KeyBounds, RowRange}
import org.apache.spark.sql.hbase.globalindex.{CoveredRow, CoveredRows, IndexKeyLayout}
import org.apache.spark.sql.hbase.logical.{HBaseRelation, IndexHint}
import org.apache.spark.sql.hbase.metadata.{GlobalIndexDef, HBaseTableDef}

/**
 * A scan's step planned for run time that reads a global index: its rows in `rows` (the index
 * key ranges the WHERE clause allows) name the data rows that may match, and the scan then reads
 * only those, by Gets, at most `maxRows` of them; with more, it reads as planned without the
 * index (`driverReadWithout` says where a collect of that plan reads). Every row read is still
 * checked against the whole WHERE clause, so the index only has to name every row that may match,
 * which the region servers guarantee: a row's index row is written before the row is
 * ([[IndexLookup.narrow]]; docs/indexes.md). Rows whose index rows changed less than
 * `recentWritesMillis` before the read began are read from the data whatever the index said:
 * they may have moved between index regions while it was read.
 */
final case class IndexLookup(
    index: GlobalIndexDef,
    keyRanges: KeyRanges,
    rows: RowRanges,
    maxRows: Int,
    driverReadWithout: Boolean = false,
    hinted: Boolean = false,
    cost: Option[IndexCost] = None,
    covering: Boolean = false,
    recentWritesMillis: Long = 120000L,
    splits: Seq[Array[Byte]] = Nil
) {
  def describe: String = {
    val ranges = keyRanges match {
      case KeyRanges.FullScan => "every key"
      case KeyRanges.Ranges(rs) =>
        s"${rs.size} key ranges ${rs.take(3).mkString(", ")}${if (rs.size > 3) ", ..." else ""}"
    }
    val why = if (hinted) ", as hinted" else cost.fold("")(c => s", ${c.describe}")
    val kind = if (covering) "covering global index" else "global index"
    val parts = if (splits.isEmpty) "" else s", read in parallel parts cut at ${splits.size} keys"
    s"rows narrowed at run time by $kind ${index.name} [${index.indexTable}]$why, $ranges (at most $maxRows rows)$parts"
  }

  /**
   * This lookup with its ranges cut where one index region holds many bytes of them (by `facts`,
   * [[IndexReadSplits]]), so that the parts are read at once.
   */
  def withSplits(facts: Option[IndexTableFacts], partBytes: Long): IndexLookup =
    facts.fold(this)(f => copy(splits = IndexReadSplits.plan(rows, f, partBytes, IndexLookup.MaxPartsPerRegion)))
}

object IndexLookup extends PredicateHelper {

  /** The most parts the ranges of one index region are read in: the driver reads at most 8 at a time. */
  val MaxPartsPerRegion = 4

  /**
   * The global index whose key ranges bound the WHERE clause best, if any: a ready index over
   * columns of which the leading ones are each bounded by a conjunct that no row with NULL there
   * passes (the index keys of such rows start 0x00, which the ranges do not cover). Lookups of
   * the leading column beat ranges of it; more bounded columns beat fewer. A hint
   * `INDEX(t, i ...)` narrows the choice to the indexes it names, where one can be used, even
   * beside a lookup by the primary key (`byKey`), which otherwise needs no index; `NO_INDEX(t)`
   * chooses none. With `covering`, a lookup whose index holds every column of `read` answers
   * from its VERIFIED rows ([[coversAll]]).
   */
  def choose(
      relation: HBaseRelation,
      where: Expression,
      read: Seq[Attribute],
      maxKeyRanges: Int,
      maxRows: Int,
      byKey: Boolean,
      covering: Boolean
  ): Option[IndexLookup] = {
    def best(indexes: Seq[GlobalIndexDef], hinted: Boolean): Option[IndexLookup] = indexes.filter(_.isReady).flatMap {
      index =>
        keyRangesOf(relation, index, where, maxKeyRanges).map { case ranges @ KeyRanges.Ranges(rs) =>
          val bounded =
            rs.map(r => r.prefix.size + (if (r.last.isDefined) 1 else 0)).minOption.getOrElse(index.columns.size)
          val lookup = IndexLookup(
            index,
            ranges,
            RowRanges(ranges, layoutOf(relation.table, index)),
            maxRows,
            hinted = hinted,
            covering = covering && coversAll(relation, index, read)
          )
          (lookup, (ranges.lookups, bounded))
        }
    }.sortBy { case (_, (lookups, bounded)) => (!lookups, -bounded) }.headOption.map(_._1)
    val all = relation.table.globalIndexes
    relation.indexHint match {
      case IndexHint.NoIndex => None
      case use: IndexHint.Use => best(all.filter(i => use.names(i.name)), hinted = true).orElse(
          if (byKey) None else best(all, hinted = false)
        )
      case IndexHint.Free => if (byKey) None else best(all, hinted = false)
    }
  }

  /**
   * The key ranges of `index` that `where` allows, over as many of its leading columns as it
   * bounds, each by a conjunct that no row with NULL there passes (the index keys of such rows
   * start 0x00, which the ranges do not cover); None when it bounds not even the first.
   */
  def keyRangesOf(
      relation: HBaseRelation,
      index: GlobalIndexDef,
      where: Expression,
      maxKeyRanges: Int
  ): Option[KeyRanges.Ranges] = {
    usableKeys(relation, index, where).flatMap { case (keys, usable) =>
      if (usable == 0) None
      else KeyRangePlanner.plan(keys, usable, _ => true, where, maxKeyRanges) match {
        case KeyRanges.FullScan => None
        case ranges: KeyRanges.Ranges => Some(ranges)
      }
    }
  }

  /**
   * The attributes of the index's columns, and how many leading ones `where` bounds: each by a
   * conjunct that no row with NULL there passes, of a type whose index keys order its values.
   * None when the relation lacks a column of the index.
   */
  def usableKeys(relation: HBaseRelation, index: GlobalIndexDef, where: Expression): Option[(Seq[Attribute], Int)] = {
    val attributes = index.columns.map(c => relation.output.find(a => relation.columnOf(a).name.equalsIgnoreCase(c)))
    if (attributes.exists(_.isEmpty)) None
    else {
      val keys = attributes.flatten
      val layout = new IndexKeyLayout(keys.map(_.dataType))
      Some((keys, keys.indices.takeWhile(d => layout.prunable(d) && rejectsNull(where, keys(d))).size))
    }
  }

  /** Whether a conjunct of `where` over `a` alone passes no row where `a` is NULL. */
  def rejectsNull(where: Expression, a: Attribute): Boolean = splitConjunctivePredicates(where).exists(c =>
    c.references.toSeq.map(_.exprId) == Seq(a.exprId) && {
      val substituted = c.transform { case r: Attribute if r.exprId == a.exprId => Literal(null, a.dataType) }
      substituted.foldable && scala.util.Try(substituted.eval()).toOption.exists {
        case null | false => true
        case _ => false
      }
    }
  )

  /** The global indexes the query's hints let a read of `relation` use, and whether a hint named them. */
  def allowed(relation: HBaseRelation): (Seq[GlobalIndexDef], Boolean) = relation.indexHint match {
    case IndexHint.NoIndex => (Nil, true)
    case use: IndexHint.Use => (relation.table.globalIndexes.filter(i => use.names(i.name)), true)
    case IndexHint.Free => (relation.table.globalIndexes, false)
  }

  /**
   * The lookups a join's other side could make, one through each ready global index whose leading
   * column it joins on, with the key ranges left for run time ([[JoinKeys.narrow]] makes them of
   * that side's values): as [[choose]] would for `column IN (values)`, hints included; none where
   * the index keys do not order that column's values (FLOAT, DOUBLE).
   */
  def forJoins(relation: HBaseRelation, read: Seq[Attribute], maxRows: Int, covering: Boolean): Seq[IndexLookup] = {
    val (indexes, hinted) = allowed(relation)
    indexes.filter(_.isReady).filter(i => layoutOf(relation.table, i).prunable(0)).map { index =>
      IndexLookup(
        index,
        KeyRanges.Ranges(Nil),
        RowRanges(Nil),
        maxRows,
        hinted = hinted,
        covering = covering && coversAll(relation, index, read)
      )
    }
  }

  /** How the index's keys encode its columns' values. */
  def layoutOf(table: HBaseTableDef, index: GlobalIndexDef): IndexKeyLayout =
    new IndexKeyLayout(index.columns.map(c => table.column(c).dataType))

  /**
   * Whether an index row holds every column of `read`: each is a key column of the table (in the
   * data row key that ends the index key), an indexed column or a covered one; none is a cell's
   * write time, which an index row does not keep.
   */
  def coversAll(relation: HBaseRelation, index: GlobalIndexDef, read: Seq[Attribute]): Boolean =
    read.map(relation.columnOf).forall { c =>
      !c.isWriteTime && (relation.table.keys.contains(c) || index.uses(c.name))
    }

  /**
   * Whether reading through `lookup` is worth it: it is, unless what HBase says of the sizes shows
   * the index's regions in its ranges to hold more bytes than the data regions the plan reads
   * (`tableBytes`), or a hint chose it. Right: the lookup, with the estimate EXPLAIN gives; Left:
   * why the index is not used.
   */
  def weigh(
      lookup: IndexLookup,
      index: Option[IndexTableFacts],
      tableBytes: Option[BigInt]
  ): Either[String, IndexLookup] =
    (index, tableBytes) match {
      case (Some(facts), Some(table)) if !lookup.hinted && facts.regions.nonEmpty =>
        val overlapped = facts.regions.count(r => lookup.rows.overlaps(RowRange(r.startKey, r.endKey)))
        val cost = IndexCost(facts.bytes * overlapped / facts.regions.size, table)
        if (cost.indexBytes <= cost.tableBytes) Right(lookup.copy(cost = Some(cost)))
        else Left(s"global index ${lookup.index.name} not used: ${cost.describe}")
      case _ => Right(lookup)
    }

  /**
   * `plan` reading only the data rows the index `found` (what it held in the lookup's ranges),
   * each by a Get in the region that holds it, and the whole of any range where it is not
   * trusted; the rows a covering index answers for are handed to the region whose ranges hold
   * their keys, and dropped where none does. Every region keeps its place, reading nothing where
   * no key falls; a region read by Gets alone is checked by Spark rather than by its server
   * filter. None (more rows than the lookup takes) leaves the plan as it was.
   */
  def narrow(plan: TableScanPlan, found: Option[IndexAnswer]): TableScanPlan = found match {
    case None => plan.copy(indexLookup = None, driverRead = plan.indexLookup.exists(_.driverReadWithout))
    case Some(answer) =>
      val points = answer.rows.map(k => RowRange(k, KeyBounds.successor(k)))
      val rows = RowRanges.merge(points ++ answer.untrusted)
      val index = plan.indexLookup.map(_.index)
      val covered = answer.covered.toIndexedSeq
      val keys = covered.view.map(_.dataKey)
      // Where the covered rows from `key` on begin: a binary search, as they are in key order, each once.
      def from(key: Array[Byte]): Int =
        keys.search(key)(Ordering.comparatorToOrdering(Bytes.BYTES_COMPARATOR)).insertionPoint
      plan.copy(
        regions = plan.regions.map { r =>
          val ranges = RowRanges(r.ranges)
          val mine = ranges.ranges.flatMap(range =>
            covered.slice(from(range.start), if (range.stop.isEmpty) covered.size else from(range.stop))
          )
          val read = r.copy(
            ranges = ranges.intersect(rows).ranges,
            covered = index.map(CoveredRows(_, mine)).filterNot(_.isEmpty)
          )
          // Gets of the rows the index named go without the server filter, which Spark's check replaces: a
          // region server reads a Get's filter anew for each Get (an IN list of 100 values, for each of 1,238
          // rows, took a third of its CPU), and the rows an index names mostly match.
          if (read.ranges.nonEmpty && read.byGets) read.withoutServer else read
        },
        driverRead = plan.driverRead && (answer.untrusted.isEmpty || plan.indexLookup.exists(_.driverReadWithout))
      )
  }
}

/**
 * The most a read through an index reads of it (its regions that hold the lookup's ranges, as
 * HBase sizes them), against the most the plan reads of the table (the regions it reads).
 */
final case class IndexCost(indexBytes: BigInt, tableBytes: BigInt) {
  def describe: String =
    s"at most ${IndexCost.mb(indexBytes)} of the index against ${IndexCost.mb(tableBytes)} of the table"
}

object IndexCost {
  private def mb(bytes: BigInt): String = f"${bytes.toDouble / (1024 * 1024)}%.1f MB"
}

/**
 * What a global index answered at run time: the data row keys its rows name, and the data key
 * ranges where it is not trusted (a bulk load changed them without it, `server.IndexTrust`), which
 * are read whole; a covering index answers for the data rows of `covered` itself, whose keys
 * are in neither, each once and in key order ([[IndexLookup.narrow]] hands them out by it).
 */
final case class IndexAnswer(rows: Seq[Array[Byte]], untrusted: Seq[RowRange], covered: Seq[CoveredRow] = Nil)
