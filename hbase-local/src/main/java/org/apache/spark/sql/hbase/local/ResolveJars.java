// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.local;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.ivy.core.settings.IvySettings;
import org.apache.spark.util.MavenUtils$;
import scala.Option;
import scala.collection.immutable.Seq;

/**
 * Fetches the embedded HBase's jars when there is no build to provide them (an installed wheel):
 * the exact versions the sbt build pinned, listed one {@code group:artifact:version} per line in a
 * lock file, each resolved without its dependencies (the lock already lists them all) by Spark's
 * own Ivy resolver from Maven Central into an Ivy cache, which checks each file against the
 * repository's checksums. Runs on pyspark's jars; Ivy reports each download on stderr.
 *
 * <p>Arguments: lock file, Ivy directory, classpath file to write (the jars, separated by ':').
 */
public final class ResolveJars {
  private static final String MAVEN_CENTRAL = "https://repo1.maven.org/maven2/";

  private ResolveJars() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 3) {
      System.err.println("usage: ResolveJars <lock file> <ivy dir> <classpath file>");
      System.exit(2);
    }
    List<String> coordinates =
        Files.readAllLines(Paths.get(args[0]), StandardCharsets.UTF_8).stream()
            .map(String::trim)
            .filter(line -> !line.isEmpty() && !line.startsWith("#"))
            .collect(Collectors.toList());
    // Maven Central alone (Spark's default chain also asks spark-packages.org), with checksums
    // checked.
    Path ivyDir = Paths.get(args[1]);
    Files.createDirectories(ivyDir);
    Path ivySettings = ivyDir.resolve("ivysettings.xml");
    Files.write(
        ivySettings,
        String.join(
                "\n",
                "<ivysettings>",
                "  <property name=\"ivy.checksums\" value=\"sha1,md5\"/>",
                "  <settings defaultResolver=\"central\"/>",
                "  <resolvers><ibiblio name=\"central\" m2compatible=\"true\" root=\""
                    + MAVEN_CENTRAL
                    + "\"/></resolvers>",
                "</ivysettings>",
                "")
            .getBytes(StandardCharsets.UTF_8));
    IvySettings settings =
        MavenUtils$.MODULE$.loadIvySettings(
            ivySettings.toString(), Option.empty(), Option.apply(ivyDir.toString()), System.err);
    Seq<String> jars =
        MavenUtils$.MODULE$.resolveMavenCoordinates(
            String.join(",", coordinates),
            settings,
            Option.empty(),
            false,
            scala.collection.immutable.List$.MODULE$.empty(),
            false,
            System.err);
    List<String> paths =
        scala.jdk.javaapi.CollectionConverters.asJava(jars).stream()
            .map(j -> j.startsWith("file:") ? Paths.get(java.net.URI.create(j)).toString() : j)
            .collect(Collectors.toList());
    if (paths.size() != coordinates.size()) {
      System.err.println(
          "resolved " + paths.size() + " jars for " + coordinates.size() + " pinned coordinates");
      System.exit(1);
    }
    Path out = Paths.get(args[2]);
    Path tmp = out.resolveSibling(out.getFileName() + ".tmp");
    Files.write(tmp, String.join(":", paths).getBytes(StandardCharsets.UTF_8));
    Files.move(
        tmp,
        out,
        java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }
}
