;; Run by run-tests.sh with only src/ on the classpath (no jepsen.checker, not
;; even the stand-in): the library loads and checks without Jepsen, and
;; `checker` says what is missing.
(require '[isocheck.core :as isocheck])

(defn- fail [& msg]
  (binding [*out* *err*] (apply println "FAIL (without Jepsen):" msg))
  (System/exit 1))

(when (find-ns 'jepsen.checker)
  (fail "jepsen.checker is loaded"))

(let [history [{:index 0, :type :invoke, :process 0, :f :txn, :value [[:append :x 1] [:r :y nil]]}
               {:index 1, :type :ok, :process 0, :f :txn, :value [[:append :x 1] [:r :y []]]}
               {:index 2, :type :invoke, :process 1, :f :txn, :value [[:r :x nil] [:append :y 1]]}
               {:index 3, :type :ok, :process 1, :f :txn, :value [[:r :x [1]] [:append :y 1]]}]
      r (isocheck/check {:isocheck (System/getenv "ISOCHECK_TEST_BINARY")} history)]
  (when-not (= {:valid? true} r)
    (fail "check returned" (pr-str r))))

(let [e (try (isocheck/checker {}) nil (catch clojure.lang.ExceptionInfo e e))]
  (when-not (and e (re-find #"needs jepsen.checker" (ex-message e)))
    (fail "checker did not explain that jepsen.checker is missing")))

(println "Without Jepsen: the namespace loads, check works, checker explains what is missing.")
(shutdown-agents)
