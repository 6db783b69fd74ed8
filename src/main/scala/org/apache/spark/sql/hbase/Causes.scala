package org.apache.spark.sql.hbase

/** A failure's chain of causes, as far as the HBase client's wrapping goes (bounded, in case of a cycle). */
object Causes {
  def of(e: Throwable): Seq[Throwable] = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(20).toSeq

  /** The first line of the innermost message: what the failure was, without its wrappers. */
  def rootMessage(e: Throwable): String =
    of(e).reverse.flatMap(c => Option(c.getMessage).filter(_.trim.nonEmpty)).headOption.getOrElse(e.toString).linesIterator.next()
}
