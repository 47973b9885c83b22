(ns isocheck.core-test
  "Tests against the real isocheck binary ($ISOCHECK_TEST_BINARY, set by
  run-tests.sh), the bundled fixtures ($ISOCHECK_REPO/fixtures) and, when it is
  beside the repository (or at $ISOCHECK_CORPUS), the shared corpus. jepsen.checker, jepsen.history and
  jepsen.store are stand-ins from test/ (Jepsen is not installable here)."
  (:require [clojure.edn :as edn]
            [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.walk :as walk]
            [clojure.test :refer [are deftest is testing]]
            [isocheck.core :as isocheck]
            [jepsen.checker :as jchecker]
            [jepsen.history :as jhistory]
            [jepsen.store :as jstore])
  (:import (java.io File PushbackReader)
           (java.nio.file Files)
           (java.nio.file.attribute FileAttribute)))

;; ---------------------------------------------------------------------------
;; Environment and helpers

(def bin
  (or (System/getenv "ISOCHECK_TEST_BINARY") (isocheck/binary {})))

(def repo
  (io/file (or (System/getenv "ISOCHECK_REPO") "..")))

(def corpus
  (io/file (or (System/getenv "ISOCHECK_CORPUS") (io/file repo ".." "shared" "corpus"))))

(defn- opts [& {:as m}]
  (merge {:isocheck bin} m))

(defn- temp-dir []
  (.toFile (Files/createTempDirectory "isocheck-test" (make-array FileAttribute 0))))

(defn- delete-tree [^File f]
  (when (.isDirectory f)
    (run! delete-tree (.listFiles f)))
  (.delete f))

(defmacro with-temp-dir [[sym] & body]
  `(let [~sym (temp-dir)]
     (try ~@body (finally (delete-tree ~sym)))))

(defn read-history
  "The ops of an EDN history file (one form per op, or one vector), as plain
  maps, or as jepsen.history.Op records where the file tags them so."
  [file]
  (with-open [r (PushbackReader. (io/reader file))]
    (let [opts  {:eof ::eof
                 :readers {'jepsen.history.Op jhistory/map->Op}
                 :default tagged-literal}
          forms (->> (repeatedly #(edn/read opts r))
                     (take-while #(not= ::eof %))
                     vec)]
      (if (and (= 1 (count forms)) (vector? (first forms)))
        (first forms)
        forms))))

(defn- fixture [& parts]
  (apply io/file repo "fixtures" parts))

(defn- header
  "A fixture's leading comment lines, without the `; `."
  [file]
  (->> (line-seq (io/reader file))
       (take-while #(str/starts-with? % ";"))
       (map #(str/replace % #"^;+ ?" ""))))

(defn- cli->elle
  "Elle options for the isocheck command-line options a fixture names."
  [tokens]
  (loop [[t v & more :as ts] tokens, m {}]
    (case t
      nil                  m
      "-m"                 (recur more (assoc m :consistency-models
                                              (when-not (= v "none")
                                                (mapv keyword (str/split v #",")))))
      "-a"                 (recur more (assoc m :anomalies (mapv keyword (str/split v #","))))
      "--sequential-keys"  (recur (rest ts) (assoc m :sequential-keys? true))
      "--linearizable-keys" (recur (rest ts) (assoc m :linearizable-keys? true))
      "--wfr-keys"         (recur (rest ts) (assoc m :wfr-keys? true))
      "--elle-compat"      (recur (rest ts) (assoc m :elle-compat? true))
      (throw (ex-info "unknown option in a fixture header" {:token t})))))

(defn- fixture-case
  "{:file :tokens :opts :elle} for a fixture whose header gives its options and
  Elle's verdict; nil otherwise. Where isocheck answers by a model's
  definition otherwise (tests/data/elle-differences.tsv), an `isocheck:` line
  gives its verdict, which :elle then holds."
  [file]
  (let [lines   (header file)
        verdict (fn [who] (some #(when-let [[_ m] (re-find (re-pattern (str "^" who ": (\\{.*\\})")) %)]
                                   (edn/read-string m))
                                lines))
        elle    (or (verdict "isocheck") (verdict "Elle"))
        options (some->> (remove #(re-find #"^(Elle|isocheck):" %) lines)
                         (str/join " ")
                         (re-find #"Options: (.*)$")
                         second
                         str/trim)]
    (when (and elle options)
      (let [tokens (if (str/starts-with? options "default")
                     []
                     (str/split options #"\s+"))]
        {:file file, :tokens tokens, :opts (cli->elle tokens), :elle elle}))))

(defn- fake-binary
  "An executable shell script in dir."
  [dir name body]
  (let [f (io/file dir name)]
    (spit f (str "#!/bin/sh\n" body "\n"))
    (.setExecutable f true)
    (str f)))

(def valid-history
  "fixtures/check/valid.edn, in memory."
  [{:index 0, :time 1000, :type :invoke, :process 0, :f :txn, :value [[:append :x 1] [:r :y nil]]}
   {:index 1, :time 2000, :type :ok, :process 0, :f :txn, :value [[:append :x 1] [:r :y []]]}
   {:index 2, :time 3000, :type :invoke, :process 1, :f :txn, :value [[:r :x nil] [:append :y 1]]}
   {:index 3, :time 4000, :type :ok, :process 1, :f :txn, :value [[:r :x [1]] [:append :y 1]]}
   {:index 4, :time 5000, :type :invoke, :process 0, :f :txn, :value [[:r :x nil] [:r :y nil]]}
   {:index 5, :time 6000, :type :ok, :process 0, :f :txn, :value [[:r :x [1]] [:r :y [1]]]}])

(def write-skew
  "fixtures/check/g2-item.edn, in memory: G2-item, invalid under serializable."
  [{:index 0, :time 0, :type :ok, :process 0, :f :txn, :value [[:append :x 1] [:r :y]]}
   {:index 1, :time 0, :type :ok, :process 0, :f :txn, :value [[:append :y 1] [:r :x]]}])

;; ---------------------------------------------------------------------------
;; Option translation (pure)

(deftest options->args-test
  (testing "each Elle option"
    (are [o argv] (= argv (isocheck/options->args o))
      {}                                                   []
      {:consistency-models [:serializable]}                ["-m" "serializable"]
      {:consistency-models [:serializable :snapshot-isolation]}
      ["-m" "serializable,snapshot-isolation"]
      {:consistency-models :read-committed}                ["-m" "read-committed"]
      {:consistency-models ["repeatable-read"]}            ["-m" "repeatable-read"]
      {:consistency-models nil}                            ["-m" "none"]
      {:consistency-models []}                             ["-m" "none"]
      {:anomalies [:G0 :G1c :G-single]}                    ["-a" "G0,G1c,G-single"]
      {:anomalies []}                                      []
      {:anomalies nil}                                     []
      {:anomalies :G2}                                     ["-a" "G2"]
      {:sequential-keys? true}                             ["--sequential-keys"]
      {:linearizable-keys? true}                           ["--linearizable-keys"]
      {:wfr-keys? true}                                    ["--wfr-keys"]
      {:sequential-keys? false, :wfr-keys? nil}            []
      {:elle-compat? true}                                 ["--elle-compat"]
      {:directory "out/elle"}                              ["--directory" "out/elle"]
      {:directory nil}                                     []
      {:timeout 60}                                        ["--timeout" "60"]
      {:timeout 1.5}                                       ["--timeout" "1.5"]
      {:timeout 1/4}                                       ["--timeout" "0.25"]
      {:workload :rw-register}                             ["--workload" "rw-register"]
      {:args ["--certain-only" "-v"]}                      ["--certain-only" "-v"]
      {:args [:--no-pruning 3]}                            [":--no-pruning" "3"]
      {:transaction-order :timestamps}                     ["--transaction-order" "timestamps"]
      {:check-timestamps? true}                            ["--check-timestamps"]
      {:transaction-order {0 2, 1 1}}                      []
      {:transaction-order-file "o.edn"}                    ["--transaction-order" "o.edn"]))
  (testing "Elle options isocheck has no use for are dropped"
    (is (= [] (isocheck/options->args {:cycle-search-timeout 1000
                                       :additional-graphs [:realtime]
                                       :plot-format :png
                                       :plot-timeout 5000
                                       :max-plot-bytes 65536
                                       :isocheck "/bin/isocheck"
                                       :store-dir "/tmp"}))))
  (testing "everything together, in a fixed order"
    (is (= ["-m" "snapshot-isolation" "-a" "G1" "--workload" "list-append"
            "--sequential-keys" "--linearizable-keys" "--wfr-keys"
            "--timeout" "10" "--directory" "d" "--certain-only"]
           (isocheck/options->args {:args ["--certain-only"]
                                    :directory "d"
                                    :timeout 10
                                    :wfr-keys? true
                                    :linearizable-keys? true
                                    :sequential-keys? true
                                    :workload "list-append"
                                    :anomalies [:G1]
                                    :consistency-models [:snapshot-isolation]})))))

(deftest command-test
  (is (= ["/opt/isocheck" "check" "--format" "edn" "-m" "none" "-a" "G0" "h.edn"]
         (isocheck/command {:isocheck "/opt/isocheck"
                            :consistency-models nil
                            :anomalies [:G0]}
                           "h.edn")))
  (testing "binary lookup: :isocheck, else $ISOCHECK, else isocheck on the PATH"
    (is (= "/x/isocheck" (isocheck/binary {:isocheck "/x/isocheck"})))
    (is (= (or (not-empty (System/getenv "ISOCHECK")) "isocheck")
           (isocheck/binary {})
           (isocheck/binary {:isocheck ""})))))

(deftest directories-test
  (testing "the report's default: beside the history in the store"
    (is (= (str (io/file "/s" "isocheck")) (isocheck/resolve-directory {:store-dir "/s"})))
    (is (= (str (io/file "/s" "k" "isocheck"))
           (isocheck/resolve-directory {:store-dir "/s", :subdirectory "k", :directory nil})))
    (is (nil? (isocheck/resolve-directory {:store-dir "/s", :report? false})) ":report? false")
    (is (nil? (isocheck/resolve-directory {})) "no store: nowhere")
    (is (= "/abs/out" (isocheck/resolve-directory {:directory "/abs/out", :store-dir "/s"
                                                   :report? false}))
        "an explicit :directory is written even with :report? false"))
  (testing ":directory"
    (is (= "out" (isocheck/resolve-directory {:directory "out"})))
    (is (= "/abs/out" (isocheck/resolve-directory {:directory "/abs/out", :store-dir "/s"})))
    (is (= (str (io/file "/s" "out"))
           (isocheck/resolve-directory {:directory "out", :store-dir "/s"})))
    (is (= (str (io/file "/s" "independent" "3" "elle"))
           (isocheck/resolve-directory {:directory "elle", :store-dir "/s"
                                        :subdirectory ["independent" 3]}))))
  (testing "where the history goes"
    (is (nil? (isocheck/output-dir {})))
    (is (= (io/file "/s" "isocheck") (isocheck/output-dir {:store-dir "/s"})))
    (is (= (io/file "/s" "sub" "isocheck")
           (isocheck/output-dir {:store-dir "/s", :subdirectory "sub"}))))
  (testing "a Jepsen test's store directory"
    (is (= "/a" (isocheck/test-store-dir {:store-dir "/a"} {:store-dir "/b"})))
    (is (= "/b" (isocheck/test-store-dir {} {:store-dir "/b"})))
    (is (= (str (io/file "store" "t" "20240101T000000.000Z"))
           (isocheck/test-store-dir {} {:name "t", :start-time "20240101T000000.000Z"})))
    (is (nil? (isocheck/test-store-dir {} {:name "t"})))))

;; ---------------------------------------------------------------------------
;; The plain function against the binary

(deftest fixtures-test
  (let [cases (keep fixture-case (sort (.listFiles (fixture "check"))))]
    (is (<= 15 (count cases)) "fixtures with Options: and Elle: headers")
    (doseq [{:keys [file tokens opts elle]} cases]
      (testing (.getName ^File file)
        (is (= tokens (isocheck/options->args opts))
            "the header's command-line options translate back")
        (let [result (isocheck/check (merge {:isocheck bin} opts) (read-history file))]
          (is (= elle (select-keys result (keys elle))) "Elle's verdict")
          (is (= (:valid? result)
                 (:valid? (isocheck/check-file (merge {:isocheck bin} opts) file)))
              "the file itself gives the same verdict")))))
  (testing "a 200-transaction history"
    (let [h (read-history (fixture "histories" "list-append-200.edn"))]
      (is (= {:valid? true} (isocheck/check (opts) h)))
      (is (= {:valid? true} (isocheck/check (opts :consistency-models [:serializable]) h))))))

(deftest in-memory-history-test
  (is (= {:valid? true} (isocheck/check (opts) valid-history)))
  (is (= {:valid? true} (isocheck/check (opts) (seq valid-history))) "a lazy seq")
  (is (= {:valid? true} (isocheck/check (opts) (eduction (map identity) valid-history)))
      "any reducible")
  (let [r (isocheck/check (opts :consistency-models [:serializable]) write-skew)]
    (is (= false (:valid? r)))
    (is (= [:G2-item] (:anomaly-types r)))
    (is (= #{:repeatable-read} (:not r)))
    (is (= 2 (count (get-in r [:anomalies :G2-item 0 :steps])))))
  (testing "snapshot isolation allows write skew"
    (is (= {:valid? true}
           (isocheck/check (opts :consistency-models [:snapshot-isolation]) write-skew))))
  (testing "no model, only G0: nothing to find"
    (is (= true (:valid? (isocheck/check (opts :consistency-models nil :anomalies [:G0])
                                         write-skew)))))
  (testing "empty history: unknown, as Elle"
    (is (= :unknown (:valid? (isocheck/check (opts) [])))))
  (testing "printing is independent of the caller's *print-...* settings"
    (with-temp-dir [dir]
      (let [h (map #(assoc % :meta {:db/node "n1", :db/tries [1 2 3 4 5]}) valid-history)
            r (binding [*print-length*         2
                        *print-level*          2
                        *print-namespace-maps* true
                        *print-meta*           true]
                (isocheck/check (opts :store-dir (str dir)) (map #(with-meta % {:m 1}) h)))
            text (slurp (io/file dir "isocheck" "history.edn"))]
        (is (= {:valid? true} r))
        (is (= 6 (count (str/split-lines text))) "one op per line")
        (is (not (str/includes? text "...")))
        (is (not (str/includes? text "#:db")))
        (is (not (str/includes? text "^{")))
        (is (= (vec h) (read-history (io/file dir "isocheck" "history.edn"))))))))

(deftest transaction-order-test
  (let [h  [{:index 0, :type :ok, :process 0, :f :txn, :value [[:r :x nil] [:w :y 2]]}
            {:index 1, :type :ok, :process 1, :f :txn, :value [[:w :x 3] [:w :y 4]]}]
        o  (opts :consistency-models [:serializable])]
    (testing "Elle's G-single transaction-order test"
      (is (= {:valid? true} (isocheck/check o h)))
      (let [r (isocheck/check (assoc o :transaction-order {0 2, 1 1}) h)]
        (is (= [:G-single-item] (:anomaly-types r)))
        (is (= #{:consistent-view :repeatable-read} (:not r)))))
    (testing "commit timestamps on the ops"
      (let [ts (map #(assoc %2 :commit-timestamp %1) [20 10] h)]
        (is (= [:G-single-item]
               (:anomaly-types (isocheck/check (assoc o :transaction-order :timestamps) ts))))))
    (testing "timestamps checked: the second writer's snapshot predates the first's commit"
      (let [ts (map #(assoc %2 :start-timestamp %1 :commit-timestamp %3) [1 5] h [20 10])
            r  (isocheck/check (assoc o :consistency-models [:snapshot-isolation]
                                        :check-timestamps? true)
                               ts)]
        (is (= [:timestamp-lost-update] (:anomaly-types r)))))
    (testing "an order naming no transaction: unknown, with isocheck's diagnostic"
      (let [r (isocheck/check (assoc o :transaction-order {7 1}) h)]
        (is (= :unknown (:valid? r)))
        (is (= 3 (:exit r)))
        (is (str/includes? (:error r) "completes at :index 7"))))))

(deftest records-test
  (with-temp-dir [dir]
    (let [records (mapv jhistory/map->Op write-skew)
          r       (isocheck/check (opts :consistency-models [:serializable]
                                        :store-dir (str dir))
                                  records)
          file    (io/file dir "isocheck" "history.edn")]
      (is (= [:G2-item] (:anomaly-types r)))
      (is (every? #(instance? jepsen.history.Op %) (get-in r [:anomalies :G2-item 0 :cycle]))
          "ops in the result are records again")
      (is (= (isocheck/check (opts :consistency-models [:serializable]) write-skew)
             (walk/postwalk #(if (record? %) (into {} %) %) r))
          "records and maps give the same result")
      (is (.exists file) "kept in <store-dir>/isocheck/")
      (is (str/starts-with? (slurp file) "#jepsen.history.Op{:index 0, "))
      (is (= records (read-history file))))))

(deftest corpus-test
  (let [tsv  (io/file corpus "elle-verdicts.tsv")
        rows (when (.exists tsv)
               (->> (rest (line-seq (io/reader tsv)))
                    (map #(str/split % #"\t" -1))
                    (filter (fn [[file workload model]]
                              (and (str/starts-with? file "GRAIL-artifact/example-histories/list-append/")
                                   (= "list-append" workload)
                                   (= "serializable" model)
                                   (.exists (io/file corpus file)))))))
        picks (remove nil? [(first (filter #(= "true" (nth % 3)) rows))
                            (first (filter #(= "false" (nth % 3)) rows))])]
    (if (empty? picks)
      (println "corpus-test: skipped:" (str (.getCanonicalFile corpus))
               "has no elle-verdicts.tsv with GRAIL list-append histories")
      (doseq [[file _ model valid anomalies not* also-not] picks]
        (println "corpus-test:" file model "(Elle: valid?" (str valid ")"))
        (testing file
          (let [keywords #(set (map keyword (remove str/blank? (str/split % #","))))
                h        (read-history (io/file corpus file))
                r        (isocheck/check (opts :consistency-models [(keyword model)]) h)]
            (is (< 100 (count h)))
            (is (= (edn/read-string valid) (:valid? r)))
            (when (= "false" valid)
              (is (= (keywords anomalies) (set (:anomaly-types r))))
              (is (= (keywords not*) (:not r)))
              (is (= (keywords also-not) (:also-not r))))))))))

;; ---------------------------------------------------------------------------
;; The checker, against the stand-in jepsen.checker protocol

(deftest checker-test
  (with-temp-dir [dir]
    (let [c    (isocheck/checker (opts :consistency-models [:serializable]
                                       :directory "isocheck-out"))
          test {:name "write-skew", :start-time "20240101T000000.000Z", :store-dir (str dir)}]
      (is (satisfies? jchecker/Checker c))
      (let [r (jchecker/check c test write-skew {:subdirectory "sub"})]
        (is (= false (:valid? r)))
        (is (= [:G2-item] (:anomaly-types r)))
        (is (.exists (io/file dir "sub" "isocheck" "history.edn")))
        (is (.exists (io/file dir "sub" "isocheck-out" "G2-item.txt"))
            "relative :directory under <store>/<subdirectory>")
        (is (not (.exists (io/file dir "sub" "isocheck" "index.html")))
            "an explicit :directory wins over the default")
        (let [page (io/file dir "sub" "isocheck-out" "index.html")]
          (is (.exists page) "the HTML report is the directory's index.html")
          (is (.contains (slurp page) "href=\"../isocheck/history.edn#L")
              "its lines link to the history kept in the store")))
      (is (= {:valid? true} (jchecker/check c test valid-history {})))
      (is (.exists (io/file dir "isocheck" "history.edn")))))
  (testing "by default the report goes beside the history in the store"
    (with-temp-dir [dir]
      (let [c    (isocheck/checker (opts :consistency-models [:serializable]))
            test {:name "write-skew", :start-time "20240101T000000.000Z", :store-dir (str dir)}
            out  (io/file dir "sub" "isocheck")
            r    (jchecker/check c test write-skew {:subdirectory "sub"})]
        (is (= [:G2-item] (:anomaly-types r)))
        (is (.exists (io/file out "history.edn")) "the history stays")
        (is (str/includes? (slurp (io/file out "G2-item.txt")) "G2-item #0")
            "the explanations")
        (let [page (slurp (io/file out "index.html"))]
          ;; Booleans, so that a failure does not print the whole page.
          (is (true? (str/includes? page "<h1 class=\"verdict invalid\"")) "the HTML report")
          (is (true? (str/includes? page "href=\"./history.edn#L"))
              "its lines link to the history beside it"))
        (testing "and a valid history's report replaces it"
          (is (= {:valid? true} (jchecker/check c test valid-history {:subdirectory "sub"})))
          (is (.exists (io/file out "index.html")))
          (is (not (.exists (io/file out "G2-item.txt")))
              "the earlier check's explanations are gone")))))
  (testing ":report? false writes no report"
    (with-temp-dir [dir]
      (let [c    (isocheck/checker (opts :consistency-models [:serializable], :report? false))
            test {:name "write-skew", :start-time "20240101T000000.000Z", :store-dir (str dir)}
            r    (jchecker/check c test write-skew {})]
        (is (= [:G2-item] (:anomaly-types r)))
        (is (= ["history.edn"] (vec (.list (io/file dir "isocheck"))))
            "only the history"))))
  (testing "store directory from jepsen.store/path when loaded"
    (with-temp-dir [dir]
      (with-redefs [jstore/base-dir (str dir)]
        (let [test {:name "t", :start-time "20240101T000000.000Z"}
              r    (jchecker/check (isocheck/checker (opts)) test valid-history {})]
          (is (= {:valid? true} r))
          (is (.exists (io/file dir "t" "20240101T000000.000Z" "isocheck" "history.edn")))))))
  (testing "no store directory: a temporary file"
    (is (= {:valid? true} (jchecker/check (isocheck/checker (opts)) {} valid-history {}))))
  (testing "errors come back as results"
    (let [r (jchecker/check (isocheck/checker {:isocheck "/nonexistent/isocheck"})
                            {} valid-history {})]
      (is (= :unknown (:valid? r)))
      (is (string? (:error r)))))
  (testing "a reloaded jepsen.checker gets the implementation again"
    (require 'jepsen.checker :reload)
    (let [c (isocheck/checker (opts))]
      (is (satisfies? @(resolve 'jepsen.checker/Checker) c))
      (is (= {:valid? true} (jchecker/check c {} valid-history {}))))))

;; ---------------------------------------------------------------------------
;; Errors

(deftest error-test
  (testing "missing binary"
    (doseq [b ["/nonexistent/isocheck" "isocheck-not-installed-anywhere"]]
      (let [r (isocheck/check {:isocheck b} valid-history)]
        (is (= :unknown (:valid? r)))
        (is (re-find #"could not run the isocheck binary" (:error r)))
        (is (str/includes? (:error r) b))
        (is (not (contains? r :exit))))))
  (testing "exit 3 on a malformed history"
    (let [r (isocheck/check-file (opts) (fixture "malformed" "truncated.edn"))]
      (is (= :unknown (:valid? r)))
      (is (= 3 (:exit r)))
      (is (re-find #"exited with status 3" (:error r)))
      (is (str/includes? (:error r) "unexpected end of input") "stderr's diagnostic")
      (is (= bin (first (:command r))))))
  (testing "an op holding a Java object prints as #object[... 0x...] and is read"
    (let [r (isocheck/check (opts) (conj valid-history
                                         {:index 6, :type :info, :process :nemesis
                                          :f :kill, :value (Object.)}))]
      (is (= {:valid? true} r))))
  (testing "exit 3 on bad options"
    (let [r (isocheck/check (opts :consistency-models [:no-such-model]) valid-history)]
      (is (= :unknown (:valid? r)))
      (is (= 3 (:exit r)))
      (is (str/includes? (:error r) "no-such-model"))))
  (testing "a history that cannot be written"
    (let [r (isocheck/check (opts) 42)]
      (is (= :unknown (:valid? r)))
      (is (re-find #"could not write the history" (:error r)))))
  (with-temp-dir [dir]
    (testing "garbage on stdout"
      (let [b (fake-binary dir "garbage" "echo 'this is not {edn'; echo 'a warning' >&2")
            r (isocheck/check {:isocheck b} valid-history)]
        (is (= :unknown (:valid? r)))
        (is (= 0 (:exit r)))
        (is (re-find #"printed no result map" (:error r)))
        (is (str/includes? (:error r) "this is not {edn"))
        (is (str/includes? (:error r) "a warning"))))
    (testing "EDN that is not a result map"
      (let [r (isocheck/check {:isocheck (fake-binary dir "number" "echo 42")} valid-history)]
        (is (= :unknown (:valid? r)))
        (is (re-find #"printed no result map" (:error r)))))
    (testing "nothing on stdout"
      (let [r (isocheck/check {:isocheck (fake-binary dir "silent" "exit 1")} valid-history)]
        (is (= :unknown (:valid? r)))
        (is (= 1 (:exit r)))))
    (testing "a crash"
      (let [r (isocheck/check {:isocheck (fake-binary dir "crash" "echo 'thread main panicked' >&2; kill -9 $$")}
                              valid-history)]
        (is (= :unknown (:valid? r)))
        (is (not (#{0 1 2 3} (:exit r))))
        (is (str/includes? (:error r) "thread main panicked"))))
    (testing "exit 1 and 2 with a result map are results"
      (let [b (fake-binary dir "invalid"
                           (str "echo '{:valid? false, :anomaly-types [:G0], :x #unknown/tag [1],"
                                " :op #not.loaded.Op{:index 1}, :h #jepsen.history.Op{:index 2}}'; exit 1"))
            r (isocheck/check {:isocheck b} valid-history)]
        (is (= false (:valid? r)))
        (is (= [:G0] (:anomaly-types r)))
        (is (= (tagged-literal 'unknown/tag [1]) (:x r)))
        (is (= {:index 1} (:op r)) "a record of a namespace not loaded: a map")
        (is (= (jhistory/map->Op {:index 2}) (:h r)) "a loaded record"))
      (let [b (fake-binary dir "unknown" "echo '{:valid? :unknown, :anomaly-types [:cycle-search-timeout]}'; exit 2")]
        (is (= {:valid? :unknown, :anomaly-types [:cycle-search-timeout]}
               (isocheck/check {:isocheck b} valid-history)))))
    (testing "the argv the binary receives"
      (let [b (fake-binary dir "argv"
                           (str "printf '{:valid? true, :argv ['\n"
                                "for a in \"$@\"; do printf '\"%s\" ' \"$a\"; done\n"
                                "printf ']}'"))
            store (io/file dir "store")
            r (isocheck/check {:isocheck b, :consistency-models [:serializable]
                               :anomalies [:G1], :directory "elle", :timeout 5
                               :store-dir (str store), :subdirectory "k"}
                              valid-history)]
        (is (= ["check" "--format" "edn" "-m" "serializable" "-a" "G1"
                "--timeout" "5" "--directory" (str (io/file store "k" "elle"))
                (str (io/file store "k" "isocheck" "history.edn"))]
               (:argv r)))
        (is (= ["check" "--format" "edn" "--directory" (str (io/file store "elle")) "h.edn"]
               (:argv (isocheck/check-file {:isocheck b, :directory "elle", :store-dir (str store)}
                                           "h.edn")))
            "check-file resolves :directory the same way")
        (is (= ["check" "--format" "edn" "--directory" (str (io/file store "k" "isocheck"))
                (str (io/file store "k" "isocheck" "history.edn"))]
               (:argv (isocheck/check {:isocheck b, :store-dir (str store), :subdirectory "k"}
                                      valid-history)))
            "with a store and no :directory, the report goes beside the history")
        (is (= ["check" "--format" "edn" "h.edn"]
               (:argv (isocheck/check-file {:isocheck b} "h.edn")))
            "without a store, no report")))))

