package org.apache.spark.sql.hbase

import org.apache.spark.sql.AnalysisException

/** A user-facing error: the message names the statement part, table or column at fault. */
class HBaseSqlException(message: String, cause: Option[Throwable] = None)
  extends AnalysisException(message, None, None, cause, None, Map.empty[String, String], Array.empty)
