addSbtPlugin("com.eed3si9n" % "sbt-assembly" % "2.3.1")

// The ANTLR tool runs inside the build to generate our parser; its version matches
// the antlr4-runtime that Spark ships.
libraryDependencies += "org.antlr" % "antlr4" % "4.13.1"
addSbtPlugin("org.scalameta" % "sbt-scalafmt" % "2.6.2")
