(ns isocheck.test-runner
  "Runs the tests and exits with a status: 0 when everything passed."
  (:require [clojure.test :as t]
            [isocheck.core-test]))

(defn -main [& _]
  (let [{:keys [fail error]} (t/run-tests 'isocheck.core-test)]
    ;; Without this the JVM lingers for a minute after any agent/future use.
    (shutdown-agents)
    (System/exit (if (zero? (+ fail error)) 0 1))))
