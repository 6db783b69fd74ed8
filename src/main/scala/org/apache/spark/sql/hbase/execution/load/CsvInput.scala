package org.apache.spark.sql.hbase.execution.load

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path}
import org.apache.hadoop.io.{LongWritable, Text}
import org.apache.hadoop.mapreduce.lib.input.{FileSplit, TextInputFormat}

import org.apache.spark.rdd.NewHadoopRDD
import org.apache.spark.sql.{Column, DataFrame, Encoders, SparkSession}
import org.apache.spark.sql.functions._
import org.apache.spark.sql.hbase.HBaseSqlException
import org.apache.spark.sql.hbase.catalog.HBaseTableDef
import org.apache.spark.sql.types._

/**
 * Delimited text files read with Spark's own CSV reader as the columns of a table, each row with
 * its place in the input (file and byte offset, for messages that give the line) and the first
 * thing wrong with it, if anything: a value that does not convert, a missing key, extra fields.
 * One record per line: a quoted value cannot span lines.
 */
object CsvInput {
  val Order = "__order"
  val Problem = "__problem"
  private val FileIndex = "__file"
  private val Offset = "__offset"
  private val Extra = "__extra"
  /** Files are told apart in a row's order by the bits above a byte offset's. */
  val OffsetBits = 44

  final case class Input(rows: DataFrame, files: IndexedSeq[String])

  /** `shownPath` is the path as the statement gave it, for messages. */
  def read(session: SparkSession, path: String, shownPath: String, table: HBaseTableDef, delimiter: String,
      header: Boolean, csvOptions: Map[String, String]): Input = {
    val hadoopConf = session.sparkContext.hadoopConfiguration
    val files = inputFiles(path, hadoopConf)
    if (files.isEmpty) throw new HBaseSqlException(s"LOAD DATA INPATH '$shownPath': no such file or directory, or no files in it")
    if (files.size >= (1 << (63 - OffsetBits))) throw new HBaseSqlException(s"LOAD DATA INPATH '$shownPath': too many files (${files.size})")
    val fileIndex = files.zipWithIndex.map { case (f, i) => new Path(f).toUri.getPath -> i }.toMap

    val lines = session.sparkContext.newAPIHadoopFile(files.mkString(","), classOf[TextInputFormat], classOf[LongWritable],
      classOf[Text], hadoopConf)
    // Each line goes to the CSV reader prefixed with where it came from, as two more fields.
    val numbered = lines.asInstanceOf[NewHadoopRDD[LongWritable, Text]].mapPartitionsWithInputSplit { (split, records) =>
      val file = fileIndex(split.asInstanceOf[FileSplit].getPath.toUri.getPath)
      records.flatMap { case (offset, text) =>
        val line = text.toString
        if (line.trim.isEmpty || (header && offset.get == 0)) None else Some(s"$file$delimiter${offset.get}$delimiter$line")
      }
    }
    val schema = StructType(
      Seq(StructField(FileIndex, LongType), StructField(Offset, LongType)) ++
        table.columns.map(c => StructField(c.name, StringType)) :+ StructField(Extra, StringType))
    val raw = session.read.options(csvOptions).option("sep", delimiter).option("header", "false")
      .option("mode", "PERMISSIVE").schema(schema).csv(session.createDataset(numbered)(Encoders.STRING))

    val converted = table.columns.map(c => c -> convert(col(quote(c.name)), c.dataType, csvOptions))
    val problems: Seq[Column] = when(col(Extra).isNotNull, lit(s"more fields than the table's ${table.columns.size} columns")) +:
      converted.map { case (c, value) =>
        val rawValue = col(quote(c.name))
        if (c.isKey) when(rawValue.isNull, lit(s"key column '${c.name}' is empty"))
          .when(value.isNull, concat(lit(s"key column '${c.name}' value '"), rawValue, lit(s"' is not a ${c.dataType.sql}")))
        else {
          val bad = when(rawValue.isNotNull && value.isNull,
            concat(lit(s"column '${c.name}' value '"), rawValue, lit(s"' is not a ${c.dataType.sql}")))
          if (c.nullable) bad else bad.when(rawValue.isNull, lit(s"column '${c.name}' is NOT NULL but empty"))
        }
      }
    val rows = raw.select(
      (col(FileIndex) * (1L << OffsetBits) + col(Offset)).as(Order) +:
        coalesce(problems: _*).as(Problem) +:
        converted.map { case (c, value) => value.as(c.name) }: _*)
    Input(rows, files)
  }

  /** Where a row's order says it came from, as the line number a text editor shows. */
  def describe(order: Long, files: IndexedSeq[String], conf: Configuration): String = {
    val file = files((order >>> OffsetBits).toInt)
    val offset = order & ((1L << OffsetBits) - 1)
    val path = new Path(file)
    val in = path.getFileSystem(conf).open(path)
    try {
      var line = 1L
      var read = 0L
      val buffer = new Array[Byte](64 * 1024)
      while (read < offset) {
        val n = in.read(buffer, 0, math.min(buffer.length.toLong, offset - read).toInt)
        if (n < 0) read = offset
        else { var i = 0; while (i < n) { if (buffer(i) == '\n') line += 1; i += 1 }; read += n }
      }
      s"$file line $line"
    } finally in.close()
  }

  private def convert(raw: Column, dataType: DataType, options: Map[String, String]): Column = {
    def option(name: String) = options.collectFirst { case (k, v) if k.equalsIgnoreCase(name) => v }
    dataType match {
      case StringType => raw
      case DateType if option("dateFormat").isDefined => to_date(try_to_timestamp(raw, lit(option("dateFormat").get)))
      case TimestampType if option("timestampFormat").isDefined => try_to_timestamp(raw, lit(option("timestampFormat").get))
      case other => raw.try_cast(other)
    }
  }

  private def quote(name: String): String = "`" + name.replace("`", "``") + "`"

  /** The files a path names: a file, the visible files of a directory, or a glob's matches. */
  private def inputFiles(path: String, conf: Configuration): IndexedSeq[String] = {
    val p = new Path(path)
    val fs: FileSystem = p.getFileSystem(conf)
    val matched = Option(fs.globStatus(p)).toSeq.flatten
    matched.flatMap { status =>
      if (status.isDirectory) fs.listStatus(status.getPath).toSeq.filter(_.isFile)
        .filterNot(f => f.getPath.getName.startsWith(".") || f.getPath.getName.startsWith("_"))
      else Seq(status)
    }.map(s => fs.makeQualified(s.getPath).toString).sorted.toIndexedSeq
  }
}
