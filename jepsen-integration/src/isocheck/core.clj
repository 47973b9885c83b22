(ns isocheck.core
  "Runs the `isocheck` binary on a Jepsen history and returns Elle's result
  map.

    (check opts history)       ; plain function, no Jepsen needed
    (check-file opts path)     ; a history.edn already on disk
    (checker opts)             ; a jepsen.checker/Checker

  Options are Elle's (`elle.list-append/check`, `elle.rw-register/check`):

    :consistency-models  absent: Elle's default (strict-serializable);
                         nil or []: no model (`-m none`)
    :anomalies           further anomalies to prohibit, e.g. [:G1 :G-single]
    :directory           write explanations and cycle plots here, and the
                         HTML report as index.html; a relative path is
                         taken under the store directory (and the checker's
                         :subdirectory) when one is known. Default: when a
                         store directory is known, <store>/<subdirectory>/isocheck
                         (beside the history kept there), as Elle writes
                         elle/ beside results.edn; else nowhere
    :sequential-keys?, :linearizable-keys?, :wfr-keys?   rw-register knowledge
    :transaction-order   rw-register: the database's commit order, a map from
                         each transaction's completion :index to its position
                         (Elle 0.2.7's option); or :timestamps, the commit
                         timestamps the ops carry (:commit-timestamp, or
                         :txn-info {:commit_ts ...})
    :check-timestamps?   also check the reads against the ops' timestamps
                         (`--check-timestamps`: :timestamp-* anomalies)

  and isocheck's own:

    :elle-compat?        Elle's rules (`--elle-compat`): reads of values nobody
                         wrote (`:garbage-read`, which every model prohibits)
                         are looked for only when :anomalies names them

    :isocheck            path to the binary; else $ISOCHECK; else `isocheck`
                         on the PATH
    :workload            :list-append or :rw-register (detected by default)
    :timeout             seconds of solving before `:valid? :unknown`
    :args                extra command-line arguments, appended verbatim
    :store-dir           directory to keep the history in (see `check`)
    :report?             false: write no report files (no default
                         :directory; an explicit :directory is still written)

  Elle's :cycle-search-timeout, :additional-graphs and plotting options are
  ignored: isocheck's cycle search is exhaustive, and strict models already
  include real-time and process order.

  Failures never throw: a missing binary, a diagnostic (exit status 3), a crash
  or output that is not a result map all give
  `{:valid? :unknown, :error \"...\", :exit n, :command [...]}`."
  (:require [clojure.edn :as edn]
            [clojure.java.io :as io]
            [clojure.string :as str])
  (:import (java.io File)
           (java.util List)))

;; ---------------------------------------------------------------------------
;; Options -> command line

(defn- option-name
  "\"G1\" for :G1, \"serializable\" for :serializable or \"serializable\"."
  [x]
  (if (instance? clojure.lang.Named x) (name x) (str x)))

(defn- option-list
  "Comma-separated names; a single keyword or string counts as a list of one."
  [xs]
  (->> (if (or (nil? xs) (sequential? xs) (set? xs)) xs [xs])
       (map option-name)
       (str/join ",")))

(defn- seconds [t]
  (if (integer? t) (str t) (str (double t))))

(defn options->args
  "The isocheck command-line arguments (after `check --format edn`, before the
  file) for Elle-style options. Pure; `:directory` is used as given."
  [opts]
  (let [models  (:consistency-models opts)
        anomaly (:anomalies opts)]
    (cond-> []
      (contains? opts :consistency-models)
      (into ["-m" (or (not-empty (option-list models)) "none")])

      (seq (option-list anomaly))      (into ["-a" (option-list anomaly)])
      (:workload opts)                 (into ["--workload" (option-name (:workload opts))])
      (:sequential-keys? opts)         (conj "--sequential-keys")
      (:linearizable-keys? opts)       (conj "--linearizable-keys")
      (:wfr-keys? opts)                (conj "--wfr-keys")
      (:elle-compat? opts)             (conj "--elle-compat")
      (:check-timestamps? opts)        (conj "--check-timestamps")
      (:transaction-order-file opts)   (into ["--transaction-order" (str (:transaction-order-file opts))])
      (#{:timestamps "timestamps"} (:transaction-order opts))
      (into ["--transaction-order" "timestamps"])
      (some? (:timeout opts))          (into ["--timeout" (seconds (:timeout opts))])
      (some? (:directory opts))        (into ["--directory" (str (:directory opts))])
      (seq (:args opts))               (into (map str (:args opts))))))

(defn binary
  "The isocheck binary: opts' :isocheck, else $ISOCHECK, else `isocheck`
  (looked up on the PATH when run)."
  [opts]
  (or (some-> (:isocheck opts) str not-empty)
      (not-empty (System/getenv "ISOCHECK"))
      "isocheck"))

(defn command
  "The full argv that checks `history-file` with these options."
  [opts history-file]
  (-> [(binary opts) "check" "--format" "edn"]
      (into (options->args opts))
      (conj (str history-file))))

;; ---------------------------------------------------------------------------
;; Where files go

(defn- path-parts
  "Jepsen-style path components: nested vectors flattened, nils dropped (as in
  jepsen.store/path)."
  [& parts]
  (->> parts flatten (remove nil?) (map str) (remove str/blank?)))

(defn- file-under [root & parts]
  (apply io/file root (apply path-parts parts)))

(defn output-dir
  "The directory isocheck's files go in when a store directory is known:
  <store-dir>/<subdirectory>/isocheck (Jepsen's Elle checkers use
  <store>/<subdirectory>/elle). nil without a store directory."
  [opts]
  (when-let [store (:store-dir opts)]
    (file-under store (:subdirectory opts) "isocheck")))

(defn resolve-directory
  "The --directory to pass. For Elle's :directory option: an absolute path as
  is; a relative one under <store-dir>/<subdirectory> when a store directory
  is known (like Jepsen's `(store/path! test (:subdirectory opts) \"elle\")`),
  else relative to the working directory. Without :directory (or with nil),
  the reports go where Jepsen's checkers put theirs, into the store: the
  `output-dir`, unless :report? is false. nil when there is nowhere to write."
  [opts]
  (if-let [dir (:directory opts)]
    (let [f (io/file (str dir))]
      (str (if (or (.isAbsolute f) (nil? (:store-dir opts)))
             f
             (file-under (:store-dir opts) (:subdirectory opts) (str dir)))))
    (when-not (false? (:report? opts))
      (some-> (output-dir opts) str))))

;; ---------------------------------------------------------------------------
;; Writing the history

(defn write-history!
  "Writes `history` (any reducible of op maps or records, e.g. a
  jepsen.history) to `file`, one op per line as `pr` prints it (what
  jepsen.store writes), streaming through a writer. Returns file."
  [file history]
  (with-open [w (io/writer (io/file file) :encoding "UTF-8")]
    (binding [*out*                  w
              *print-length*         nil
              *print-level*          nil
              *print-namespace-maps* false
              *print-meta*           false
              *print-dup*            false
              *print-readably*       true
              *flush-on-newline*     false]
      (run! (fn [op] (pr op) (newline)) history)))
  file)

(defn write-order!
  "Writes a :transaction-order map ({completion-index position}) to `file` as
  EDN, for --transaction-order. Returns file."
  [file order]
  (binding [*print-length* nil, *print-level* nil, *print-meta* false]
    (spit file (pr-str (into {} order)) :encoding "UTF-8"))
  file)

;; ---------------------------------------------------------------------------
;; Running the binary

(def ^:private max-text
  "How much of stderr/stdout an error message quotes."
  4000)

(defn- excerpt [^String s]
  (let [s (str/trim (or s ""))]
    (if (> (count s) max-text)
      (str (subs s 0 max-text) " ... (" (- (count s) max-text) " more characters)")
      s)))

(defn- error-result [cmd exit msg]
  (cond-> {:valid? :unknown, :error msg, :command cmd}
    exit (assoc :exit exit)))

(defn- run-process
  "Runs argv with stdin closed; returns {:exit :out :err}. stderr goes through
  a temporary file, so neither pipe can fill up and block the child."
  [argv]
  (let [err-file (File/createTempFile "isocheck-stderr" ".txt")]
    (try
      (let [pb (ProcessBuilder. ^List (vec argv))
            _  (.redirectError pb err-file)
            _  (.put (.environment pb) "NO_COLOR" "1")
            p  (.start pb)]
        (try
          (.close (.getOutputStream p))
          (let [out  (slurp (.getInputStream p) :encoding "UTF-8")
                exit (.waitFor p)]
            {:exit exit
             :out  out
             :err  (slurp err-file :encoding "UTF-8")})
          (finally
            ;; Only alive here if we were interrupted or reading failed.
            (when (.isAlive p) (.destroyForcibly p)))))
      (finally
        (.delete err-file)))))

(defn- record-constructor
  "For a record tag like jepsen.history.Op, the map->Op constructor when its
  namespace is loaded (never loads one); nil otherwise."
  [tag]
  (let [s (str tag)
        i (.lastIndexOf s ".")]
    (when (pos? i)
      (when-let [ns (find-ns (symbol (str/replace (subs s 0 i) "_" "-")))]
        (let [v (ns-resolve ns (symbol (str "map->" (subs s (inc i)))))]
          (when (and (var? v) (fn? @v)) @v))))))

(defn- read-tagged
  "isocheck prints ops as it read them, so ops written as
  #jepsen.history.Op{...} come back tagged: they become records again when
  their namespace is loaded (as in a Jepsen run), else plain maps. Other
  tags stay tagged literals."
  [tag form]
  (if (map? form)
    (if-let [ctor (record-constructor tag)] (ctor form) form)
    (tagged-literal tag form)))

(defn- parse-result [^String out]
  (try
    (let [r (edn/read-string {:default read-tagged, :eof nil} out)]
      (if (and (map? r) (contains? r :valid?))
        r
        (ex-info "not a result map" {})))
    (catch Exception e e)))

(defn- interpret [cmd {:keys [exit out err]}]
  (let [parsed (when (#{0 1 2} exit) (parse-result out))]
    (cond
      (map? parsed)
      parsed

      (#{0 1 2} exit)
      (error-result cmd exit
                    (str "isocheck exited with status " exit
                         " but printed no result map ("
                         (.getMessage ^Exception parsed) ")"
                         "; stdout: " (pr-str (excerpt out))
                         (when-not (str/blank? err)
                           (str "; stderr: " (excerpt err)))))

      :else
      (error-result cmd exit
                    (str "isocheck exited with status " exit
                         (when (= 3 exit) " (unreadable history or bad options)")
                         (if (str/blank? err)
                           (str "; stdout: " (pr-str (excerpt out)))
                           (str ": " (excerpt err))))))))

(defn check-file
  "Checks a history file already on disk (e.g. a test's history.edn) and
  returns the result map. A relative :directory goes under :store-dir (and
  :subdirectory) when given; with :store-dir and no :directory the reports
  go to <store-dir>/<subdirectory>/isocheck (see `resolve-directory`). Never
  throws."
  [opts history-file]
  (let [order (when (map? (:transaction-order opts))
                (write-order! (File/createTempFile "isocheck-order" ".edn")
                              (:transaction-order opts)))
        cmd   (command (cond-> (assoc opts :directory (resolve-directory opts))
                         order (assoc :transaction-order-file order))
                       history-file)]
    (try
      (interpret cmd (run-process cmd))
      (catch java.io.IOException e
        (error-result cmd nil
                      (str "could not run the isocheck binary " (pr-str (first cmd))
                           ": " (.getMessage e)
                           " (set the :isocheck option or the ISOCHECK environment variable)")))
      (catch InterruptedException e
        (.interrupt (Thread/currentThread))
        (error-result cmd nil (str "interrupted while isocheck ran: " e)))
      (catch Exception e
        (error-result cmd nil (str "isocheck failed: " e)))
      (finally
        (when order (.delete ^File order))))))

(defn check
  "Checks `history` (a seq or other reducible of op maps or records) with
  Elle-style `opts` and returns Elle's result map. Never throws.

  Where the history is written: with :store-dir, to
  <store-dir>/<subdirectory>/isocheck/history.edn, which is kept, and the
  report (index.html, the explanations and cycle plots) beside it unless
  :directory says elsewhere or :report? is false (a relative :directory then
  goes under <store-dir>/<subdirectory> too); without, to a temporary file
  deleted afterwards, and no report unless :directory names one."
  [opts history]
  (try
    (let [out-dir (output-dir opts)
          file    (if out-dir
                    (do (.mkdirs ^File out-dir) (io/file out-dir "history.edn"))
                    (File/createTempFile "isocheck-history" ".edn"))]
      (try
        (write-history! file history)
        (check-file opts file)
        (finally
          (when-not out-dir (.delete ^File file)))))
    (catch Exception e
      {:valid? :unknown
       :error  (str "could not write the history for isocheck: " e)})))

;; ---------------------------------------------------------------------------
;; Jepsen

(defn test-store-dir
  "The store directory for a Jepsen test: :store-dir from the checker's opts,
  else :store-dir from the test map, else, when jepsen.store is loaded (as in
  any Jepsen run), `(jepsen.store/path test)`, the directory Jepsen writes the
  test's history.edn and results.edn to. nil if none is known."
  [opts test]
  (or (:store-dir opts)
      (:store-dir test)
      (when (and (:name test) (:start-time test))
        (when-let [path (some-> (find-ns 'jepsen.store) (ns-resolve 'path))]
          (try (str (path test)) (catch Exception _ nil))))))

;; The checker is a record, and its jepsen.checker/Checker implementation is
;; attached with `extend` when `checker` is first called, after requiring
;; jepsen.checker from the classpath. So this namespace loads, and `check`
;; works, without Jepsen; nothing is compiled against a protocol that might be
;; missing (no eval'd reify); and a project that reloads jepsen.checker (a new
;; protocol object) gets the implementation attached again on its next call.
;; Jepsen calls checkers through the protocol function `jepsen.checker/check`,
;; which sees implementations added with `extend`.
(defrecord IsocheckChecker [opts])

(defn- check-test
  "Jepsen's check: the history and the report go to
  <store>/<subdirectory>/isocheck/."
  [this test history check-opts]
  (let [opts (:opts this)]
    (check (assoc opts
                  :store-dir    (test-store-dir opts test)
                  :subdirectory (:subdirectory check-opts))
           history)))

(defn- checker-protocol
  "jepsen.checker/Checker, loading its namespace if needed; nil without Jepsen."
  []
  (try
    (require 'jepsen.checker)
    (some-> (resolve 'jepsen.checker/Checker) deref)
    (catch Exception _ nil)))

(defn checker
  "A jepsen.checker/Checker that runs isocheck with these options (see the
  namespace doc) and returns its result map. Needs jepsen.checker on the
  classpath; throws ex-info if it is absent (use `check` without Jepsen)."
  ([] (checker {}))
  ([opts]
   (let [proto (checker-protocol)]
     (when-not proto
       (throw (ex-info (str "isocheck.core/checker needs jepsen.checker on the classpath;"
                            " without Jepsen use isocheck.core/check")
                       {:opts opts})))
     (when-not (extends? proto IsocheckChecker)
       (extend IsocheckChecker proto {:check check-test}))
     (->IsocheckChecker opts))))
