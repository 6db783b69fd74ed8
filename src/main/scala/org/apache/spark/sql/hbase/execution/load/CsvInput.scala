package org.apache.spark.sql.hbase.execution.load

import com.univocity.parsers.csv.CsvParser
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path}
import org.apache.hadoop.io.{LongWritable, Text}
import org.apache.hadoop.mapreduce.lib.input.{FileInputFormat, FileSplit, TextInputFormat}

import org.apache.spark.rdd.NewHadoopRDD
import org.apache.spark.sql.{classic, Column, DataFrame, Encoders, SparkSession}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.csv.CSVOptions
import org.apache.spark.sql.functions._
import org.apache.spark.sql.hbase.HBaseSqlException
import org.apache.spark.sql.hbase.catalog.HBaseTableDef
import org.apache.spark.sql.hbase.codec.Utf8
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * Delimited text files read with Spark's own CSV reader as the columns of a table, each row with
 * its place in the input (file and byte offset, for messages that give the line) and the first
 * thing wrong with it, if anything: a value that does not convert, a missing key, a field count
 * other than the table's. One record per line: a quoted value cannot span lines.
 */
object CsvInput {
  private val Order = "__order"
  private val Corrupt = "__corrupt"
  /** Files are told apart in a row's order by the bits above a byte offset's. */
  val OffsetBits = 44

  /**
   * Rows whose first field is their order (see [[describe]]), the second their problem (NULL when
   * they have none), then the table's columns, then the line as read when its field count is wrong.
   */
  final case class Input(rows: DataFrame, files: IndexedSeq[String])

  /** How to read the files: the table, and the statement's delimiter, header flag and CSV options. */
  final case class Format(table: HBaseTableDef, delimiter: String, header: Boolean, csvOptions: Map[String, String]) {
    private val comment: Option[Array[Byte]] =
      csvOptions.collectFirst { case (k, v) if k.equalsIgnoreCase("comment") && v.nonEmpty => Utf8.bytes(v) }

    /** Lines Spark's CSV reader passes over: blank ones (as String.trim sees them), and comments. */
    def skips(line: Text): Boolean = {
      val (bytes, length) = (line.getBytes, line.getLength)
      var i = 0
      while (i < length && (bytes(i) & 0xff) <= ' ') i += 1
      i == length || comment.exists(c => length >= c.length && java.util.Arrays.equals(bytes, 0, c.length, c, 0, c.length))
    }

    /** What is wrong with a line (as read, with its leading field) whose field count is not the table's. */
    def fieldCountProblem(line: String): String = {
      val parser = new CsvParser(new CSVOptions(csvOptions + ("sep" -> delimiter), false, "UTC").asParserSettings)
      val fields = parser.parseLine(line).length - 1
      val columns = table.columns.size
      s"$fields field${if (fields == 1) "" else "s"}, ${if (fields > columns) "more" else "fewer"} than the table's $columns columns"
    }
  }

  /** `shownPath` is the path as the statement gave it, for messages. */
  def read(session: SparkSession, path: String, shownPath: String, format: Format): Input = {
    val (delimiter, header, table) = (format.delimiter, format.header, format.table)
    val hadoopConf = new Configuration(session.sparkContext.hadoopConfiguration)
    val files = inputFiles(path, hadoopConf)
    if (files.isEmpty) throw new HBaseSqlException(s"LOAD DATA INPATH '$shownPath': no such file or directory, or no files in it")
    if (files.size >= (1 << (63 - OffsetBits))) throw new HBaseSqlException(s"LOAD DATA INPATH '$shownPath': too many files (${files.size})")
    val fileIndex = files.map(_.getPath.toUri.getPath).zipWithIndex.toMap

    // As many splits as task slots, whatever the file system's block size: a last, smaller split
    // would leave a core idle while it runs.
    val slots = session.sparkContext.defaultParallelism
    val splitSize = math.max(1L << 20, (files.map(_.getLen).sum + slots - 1) / slots)
    hadoopConf.setLong(FileInputFormat.SPLIT_MINSIZE, splitSize)
    hadoopConf.setLong(FileInputFormat.SPLIT_MAXSIZE, splitSize)
    val lines = session.sparkContext.newAPIHadoopFile(files.map(_.getPath.toString).mkString(","), classOf[TextInputFormat],
      classOf[LongWritable], classOf[Text], hadoopConf)
    // Each line goes to the CSV reader prefixed with where it came from, as one more field. The
    // parser ends a record at a line break, or else at the end of its input, which it signals
    // with an exception: a line break after every line saves one exception per row.
    val numbered = lines.asInstanceOf[NewHadoopRDD[LongWritable, Text]].mapPartitionsWithInputSplit { (split, records) =>
      val file = fileIndex(split.asInstanceOf[FileSplit].getPath.toUri.getPath).toLong << OffsetBits
      val separator = Utf8.bytes(delimiter)
      records.flatMap { case (offset, text) =>
        if (format.skips(text) || (header && offset.get == 0)) None
        else {
          val order = Utf8.bytes((file + offset.get).toString)
          val line = new Array[Byte](order.length + separator.length + text.getLength + 1)
          System.arraycopy(order, 0, line, 0, order.length)
          System.arraycopy(separator, 0, line, order.length, separator.length)
          System.arraycopy(text.getBytes, 0, line, order.length + separator.length, text.getLength)
          line(line.length - 1) = '\n'
          Some(InternalRow(UTF8String.fromBytes(line)))
        }
      }
    }
    val schema = StructType(StructField(Order, LongType) +:
      table.columns.map(c => StructField(c.name, StringType)) :+ StructField(Corrupt, StringType))
    // A line with another field count than the schema's lands whole in the corrupt-record column.
    val lineTexts = session.asInstanceOf[classic.SparkSession]
      .internalCreateDataFrame(numbered, StructType(Seq(StructField("line", StringType))))
    val raw = session.read.options(format.csvOptions).option("sep", delimiter).option("header", "false")
      .option("mode", "PERMISSIVE").option("columnNameOfCorruptRecord", Corrupt).schema(schema)
      .csv(lineTexts.as[String](Encoders.STRING))

    val converted = table.columns.map(c => c -> convert(col(quote(c.name)), c.dataType, format.csvOptions))
    val problems: Seq[Column] = when(col(Corrupt).isNotNull, lit("a field count other than the table's")) +:
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
      (col(Order) +: coalesce(problems: _*) +:
        converted.map { case (c, value) => value.as(c.name) }) :+ col(Corrupt): _*)
    Input(rows, files.map(_.getPath.toString))
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
  private def inputFiles(path: String, conf: Configuration): IndexedSeq[org.apache.hadoop.fs.FileStatus] = {
    val p = new Path(path)
    val fs: FileSystem = p.getFileSystem(conf)
    val matched = Option(fs.globStatus(p)).toSeq.flatten
    matched.flatMap { status =>
      if (status.isDirectory) fs.listStatus(status.getPath).toSeq.filter(_.isFile)
        .filterNot(f => f.getPath.getName.startsWith(".") || f.getPath.getName.startsWith("_"))
      else Seq(status)
    }.map(s => { s.setPath(fs.makeQualified(s.getPath)); s }).sortBy(_.getPath.toString).toIndexedSeq
  }
}
