(ns jepsen.checker
  "Test stand-in for Jepsen's jepsen.checker, which cannot be installed here
  (no Clojars): only the Checker protocol, with the same name and signature as
  jepsen-io/jepsen's jepsen/src/jepsen/checker.clj. Never on the classpath of
  a real Jepsen project, which brings its own.")

(defprotocol Checker
  (check [checker test history opts]
    "Verify the history is correct. Returns a map like

    {:valid? true}

    or

    {:valid?       false
     :some-details ...
     :failed-at    [details of specific operations]}

    Opts is a map of options controlling checker execution. Keys include:

    :subdirectory - A directory within this test's store directory where
                    output files should be written. Defaults to nil."))
