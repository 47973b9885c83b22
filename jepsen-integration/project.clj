(defproject isocheck/jepsen-integration "0.1.0-SNAPSHOT"
  :description "A Jepsen checker that runs the isocheck binary and returns Elle's result map"
  :license {:name "MIT OR Apache-2.0"}
  ;; Nothing beyond Clojure: Jepsen's `jepsen.checker` is found at run time
  ;; on the depending project's classpath (see isocheck.core/checker).
  :dependencies [[org.clojure/clojure "1.11.1"]]
  :source-paths ["src"]
  :test-paths ["test"])
