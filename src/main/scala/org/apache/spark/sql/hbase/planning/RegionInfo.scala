package org.apache.spark.sql.hbase.planning

import org.apache.hadoop.hbase.util.Bytes

/** One region of a table: rows in [startKey, endKey); an empty key means the table's edge. */
final case class RegionInfo(startKey: Array[Byte], endKey: Array[Byte], host: Option[String]) {
  def overlaps(range: RowRange): Boolean = (endKey.isEmpty || Bytes.compareTo(range.start, endKey) < 0) &&
    (range.stop.isEmpty || Bytes.compareTo(startKey, range.stop) < 0)

  override def toString: String =
    s"[${Bytes.toStringBinary(startKey)}, ${Bytes.toStringBinary(endKey)})@${host.getOrElse("?")}"
}
