;; Writes fixtures/fressian/: Fressian as the JVM writes it, for
;; tests/fressian.rs and tests/recheck.rs to hold isocheck's reader to.
;; Run from the repository root with Debian's packages (no Maven needed):
;;
;;   apt-get install clojure libdata-fressian-clojure libfressian-java
;;   java -cp /usr/share/java/clojure.jar:/usr/share/java/data.fressian.jar:/usr/share/java/fressian.jar \
;;     clojure.main scripts/fressian-fixtures.clj
;;
;; (Debian's clojure 1.11.1, data.fressian 1.0.0 and fressian 0.6.6 on
;; OpenJDK wrote the committed files.) It writes:
;;
;; - values/NAME.fressian, one value each, and values.tsv: NAME, then the
;;   value as tests/fressian.rs describes it (see `describe`).
;; - test.fressian: a Jepsen test map as stores before Jepsen 0.3 hold it,
;;   history and results inline, with Jepsen's write handlers.
;; - test.jepsen: the same test in Jepsen's block format
;;   (jepsen.store.format, version 1): a stale root first, then results as
;;   two partial-map blocks, the history as a FressianStream chunk under a
;;   BigVector, the test map, and two index blocks (the header points to
;;   the second).
;; - partial-root.jepsen: a root that is a partial map whose keys go on in
;;   a rest block.
;;
;; Jepsen's handlers (jepsen.store.fressian, jepsen.store.format) are
;; written again here from their source: the tags and field counts match.
(require '[clojure.data.fressian :as fress]
         '[clojure.java.io :as io]
         '[clojure.string :as str])
(import '(org.fressian.handlers WriteHandler)
        '(org.fressian Writer TaggedObject)
        '(java.io ByteArrayOutputStream)
        '(java.nio ByteBuffer)
        '(java.util.zip CRC32))

(deftype DateTime [s])
(deftype BlockRef [id])
(deftype Op [index time type process f value])
(defrecord Point [x y])

(defn handler [f] (reify WriteHandler (write [_ w x] (f w x))))

(def jepsen-write-handlers
  (-> (merge fress/clojure-write-handlers
             {clojure.lang.PersistentHashSet
              {"persistent-hash-set" (handler (fn [^Writer w s]
                                                (.writeTag w "persistent-hash-set" 1)
                                                (.writeObject w (seq s))))}
              DateTime
              {"date-time" (handler (fn [^Writer w ^DateTime t]
                                      (.writeTag w "date-time" 1)
                                      (.writeObject w (.s t))))}
              java.time.Instant
              {"instant" (handler (fn [^Writer w i]
                                    (.writeTag w "instant" 1)
                                    (.writeObject w (str i))))}
              clojure.lang.MapEntry
              {"map-entry" (handler (fn [^Writer w e]
                                      (.writeTag w "map-entry" 2)
                                      (.writeObject w (key e))
                                      (.writeObject w (val e))))}
              clojure.lang.Atom
              {"atom" (handler (fn [^Writer w a]
                                 (.writeTag w "atom" 1)
                                 (.writeObject w @a)))}
              BlockRef
              {"block-ref" (handler (fn [^Writer w ^BlockRef r]
                                      (.writeTag w "block-ref" 1)
                                      (.writeObject w (.id r))))}
              Op
              {"jepsen.history.Op" (handler (fn [^Writer w ^Op op]
                                              (.writeTag w "jepsen.history.Op" 7)
                                              (.writeInt w (.index op))
                                              (.writeInt w (.time op))
                                              (.writeObject w (.type op) true)
                                              (.writeObject w (.process op))
                                              (.writeObject w (.f op) true)
                                              (.writeObject w (.value op))
                                              (.writeObject w nil)))}})
      fress/associative-lookup
      fress/inheritance-lookup))

(defn fressian-bytes
  "Values written one after the other with Jepsen's handlers; :footer
  writes a footer after each."
  [xs & {:keys [footer]}]
  (let [out (ByteArrayOutputStream.)
        w   (fress/create-writer out :handlers jepsen-write-handlers)]
    (doseq [x xs]
      (fress/write-object w x)
      (when footer (fress/write-footer w)))
    (.close ^java.io.Closeable w)
    (.toByteArray out)))

;; ---------------------------------------------------------------------
;; Descriptions: what tests/fressian.rs prints for the value it reads.

(defn units-of [^String s] (seq (.toCharArray s)))

(defn describe-string [^String s]
  (if (> (count s) 100)
    (str "str#" (count s) "#" (.hashCode s))
    (str "\""
         (apply str (map (fn [^Character c]
                           (let [n (int c)]
                             (if (and (<= 0x20 n 0x7E) (not= c \") (not= c \\))
                               (str c)
                               (format "\\u%04X" n))))
                         (units-of s)))
         "\"")))

(defn named [x]
  (str (when-let [ns (namespace x)] (str ns "/")) (name x)))

(declare describe)

(defn describe-seq [open xs close]
  (str open (str/join " " (map describe xs)) close))

(defn describe [x]
  (cond
    (nil? x) "nil"
    (boolean? x) (str x)
    (instance? Long x) (str x)
    (instance? Integer x) (str x)
    (instance? Double x) (str "d:" (Long/toHexString (Double/doubleToRawLongBits x)))
    (instance? Float x) (str "d:" (Long/toHexString (Double/doubleToRawLongBits (double x))))
    (string? x) (describe-string x)
    (keyword? x) (str ":" (named x))
    (symbol? x) (str "sym:" (named x))
    (char? x) (str "char:" (int x))
    (bytes? x) (if (> (alength ^bytes x) 100)
                 (str "bytes#" (alength ^bytes x) "#" (java.util.Arrays/hashCode ^bytes x))
                 (str "bytes:" (apply str (map #(format "%02x" (bit-and % 0xff)) x))))
    (instance? java.util.Date x) (str "inst:" (.getTime ^java.util.Date x))
    (uuid? x) (str "uuid:" x)
    (instance? clojure.lang.BigInt x) (str "bigint:" x)
    (instance? BigInteger x) (str "bigint:" x)
    (decimal? x) (str "bigdec:" (.unscaledValue ^BigDecimal x) ":" (.scale ^BigDecimal x))
    (ratio? x) (str "ratio:" (describe (numerator x)) "/" (describe (denominator x)))
    (instance? java.util.regex.Pattern x) (str "regex:" (describe-string (str x)))
    (instance? java.net.URI x) (str "uri:" (describe-string (str x)))
    (record? x) (str "record:" (.getName (class x)) " "
                     (describe-seq "{" (mapcat identity (into {} x)) "}"))
    (instance? DateTime x) (str "tagged:date-time[" (describe (.s ^DateTime x)) "]")
    (instance? BlockRef x) (str "tagged:block-ref[" (describe (.id ^BlockRef x)) "]")
    (instance? java.time.Instant x) (str "tagged:instant[" (describe (str x)) "]")
    (instance? clojure.lang.Atom x) (describe @x)
    (instance? TaggedObject x) (str "tagged:" (.getTag ^TaggedObject x)
                                    (describe-seq "[" (.getValue ^TaggedObject x) "]"))
    (instance? Op x) (let [^Op o x]
                       (str "tagged:jepsen.history.Op"
                            (describe-seq "[" [(.index o) (.time o) (.type o) (.process o)
                                               (.f o) (.value o) nil] "]")))
    (map-entry? x) (describe-seq "[" [(key x) (val x)] "]")
    (map? x) (describe-seq "{" (mapcat identity (seq x)) "}")
    (set? x) (describe-seq "#{" (seq x) "}")
    (.isArray (class x)) (describe-seq "[" (seq x) "]")
    (sequential? x) (describe-seq "[" x "]")
    :else (throw (ex-info "cannot describe" {:x x :class (class x)}))))

;; ---------------------------------------------------------------------
;; One value per file.

(def rng (java.util.Random. 34))

(def many-keywords (mapv #(keyword "k" (str "key-" %)) (range 40)))

(def values
  (concat
    ;; Every packed int width, both signs, and the edges between them.
    [["ints" (vec (for [bits [0 1 5 6 7 12 13 19 20 25 26 33 34 41 42 49 50 62 63]
                        sign [1 -1]
                        delta [-1 0 1]
                        :let [n (try (+ (* sign (bit-shift-left 1 bits)) delta)
                                     (catch ArithmeticException _ nil))]
                        :when n]
                    n))]]
    [["int-max" Long/MAX_VALUE]
     ["int-min" Long/MIN_VALUE]
     ["nil" nil]
     ["true" true]
     ["false" false]
     ["double-0" 0.0]
     ["double-1" 1.0]
     ["double" -2.75e-300]
     ["double-nan" Double/NaN]
     ["float" (float 1.25)]
     ["string-empty" ""]
     ["string-packed" "seven!!"]
     ["string-counted" "eight!!! and more"]
     ["string-unicode" "héllo wörld, 日本語, 😀"]
     ;; Chunks of 65,536 bytes; the surrogate pair straddles the first
     ;; chunk's end (65,533 + 3 bytes: the high surrogate ends the chunk).
     ["string-chunked" (str (apply str (repeat 65533 "a")) "😀" (apply str (repeat 70000 "é")))]
     ["bytes-packed" (byte-array [1 2 3])]
     ["bytes-counted" (byte-array (range 0 100))]
     ["bytes-chunked" (byte-array (map unchecked-byte (range 0 140000)))]
     ["keyword" :consistency-models]
     ["keyword-ns" :jepsen.tests/workload]
     ["symbol" 'jepsen.core/run!]
     ["char" \λ]
     ["ratio" 22/7]
     ["bigint-small" 12345N]
     ["bigint-large" (bigint (.pow (BigInteger/valueOf 3) 100))]
     ["bigint-negative" (bigint (.negate (.pow (BigInteger/valueOf 7) 40)))]
     ["bigdec" 3.14159M]
     ["inst" (java.util.Date. 1700000000123)]
     ["uuid" #uuid "123e4567-e89b-12d3-a456-426614174000"]
     ["regex" #"a+b*"]
     ["uri" (java.net.URI. "http://jepsen.io/x?y=1")]
     ["vector" [1 [2 [3 []]] "x"]]
     ["list" '(1 2 3 4 5 6 7 8 9 10)]
     ["set" #{:serializable}]
     ["map" {:consistency-models [:snapshot-isolation :serializable] :anomalies [:G1]}]
     ["map-large" (into {} (map (fn [i] [(keyword (str "k" i)) i]) (range 20)))]
     ["record" (->Point 1 2)]
     ["int-array" (int-array [1 -2 300000])]
     ["long-array" (long-array [1 -2 300000000000])]
     ["double-array" (double-array [0.5 1.0])]
     ["boolean-array" (boolean-array [true false])]
     ["object-array" (object-array ["a" :b 3])]
     ;; The priority cache: 40 keywords, each name and namespace cached,
     ;; all referred to again (entries past 32 by GET_PRIORITY_CACHE).
     ["priority-cache" (vec (concat many-keywords (reverse many-keywords)))]
     ;; Struct types: 20 unknown tags (past the 16 packed references),
     ;; each used twice.
     ["struct-cache" (vec (for [round [0 1] i (range 20)]
                            (TaggedObject. (str "my/tag-" i) (object-array [round i]))))]
     ["unknown-tag" [(TaggedObject. "some.Unknown" (object-array [1 "two" [3]])) :after]]
     ["date-time" (DateTime. "20240101T120000.000Z")]
     ["instant" (java.time.Instant/ofEpochMilli 1700000000123)]
     ["block-ref" (BlockRef. (int 7))]
     ["op" (Op. 3 1200 :ok 0 :txn [[:append 1 2] [:r 1 [2]]])]
     ["atom" (atom {:a 1})]
     ["map-entry" (first {:k :v})]]))

(def dir (io/file "fixtures/fressian"))
(.mkdirs (io/file dir "values"))

(with-open [tsv (io/writer (io/file dir "values.tsv"))]
  (.write tsv "# name\tthe value written (scripts/fressian-fixtures.clj's describe)\n")
  (doseq [[name v] values]
    (io/copy (fressian-bytes [v]) (io/file dir "values" (str name ".fressian")))
    (.write tsv (str name "\t" (describe v) "\n")))
  ;; A footer after the value, and a stream of two values with footers.
  (let [v {:a [1 2] :b "footer"}]
    (io/copy (fressian-bytes [v] :footer true) (io/file dir "values" "footer.fressian"))
    (.write tsv (str "footer\t" (describe v) "\n"))))

;; ---------------------------------------------------------------------
;; Jepsen test maps.

(def ops
  (vec (for [i (range 200)]
         (Op. i (* 1000 i) ([:invoke :ok :info :fail] (mod i 4)) (mod i 5) :txn
              [[:append (mod i 7) i] [:r (mod i 3) (vec (range (mod i 4)))]]))))

(defn test-map [models]
  {:name               "append-si"
   :start-time         (DateTime. "20240101T000000.000Z")
   :nodes              ["n1" "n2" "n3" "n4" "n5"]
   :concurrency        10
   :ssh                {:username "root" :port 22 :strict-host-key-checking false}
   :argv               ["test" "--workload" "append"]
   :workload           :append
   :consistency-models models
   :anomalies          [:G1]
   :max-txn-length     4
   :time-limit         30
   :plot               {:nemeses #{{:name "kill" :color "#E9A4A0"}}}
   :extra              {:ratio 1/3 :big 123456789012345678901234567890N :when (java.util.Date. 0)
                        :id #uuid "00000000-0000-0000-0000-000000000001" :point (->Point 1 2)
                        :entry (first {:a :b}) :state (atom 5)}})

;; test.fressian: the whole test, history and results inline.
(io/copy (fressian-bytes [(assoc (test-map [:snapshot-isolation])
                                 :history ops
                                 :results {:valid? true :workload {:valid? true}})])
         (io/file dir "test.fressian"))

(defn crc-of [^bytes data ^bytes header]
  (let [c (CRC32.)]
    (.update c data)
    (.update c header)
    (unchecked-int (.getValue c))))

(defn block
  "A block of the given type: a 28-byte header (length, CRC32, type, then
  padding: block-type-size is 16 in jepsen.store.format), then the data."
  [type ^bytes data]
  (let [len    (+ 28 (alength data))
        header (doto (ByteBuffer/allocate 28)
                 (.putLong 0 len)
                 (.putShort 12 (short type)))
        crc    (crc-of data (.array header))]
    (.putInt header 8 crc)
    (byte-array (concat (.array header) data))))

(defn int-bytes [n] (.array (doto (ByteBuffer/allocate 4) (.putInt 0 (int n)))))
(defn long-bytes [n] (.array (doto (ByteBuffer/allocate 8) (.putLong 0 (long n)))))

(defn partial-map [rest-id m]
  (block 3 (byte-array (concat (int-bytes rest-id) (fressian-bytes [m])))))

(defn index-block [root offsets]
  (block 1 (byte-array (concat (int-bytes root)
                               (mapcat (fn [[id off]] (concat (int-bytes id) (long-bytes off)))
                                       offsets)))))

(defn jepsen-file
  "Blocks (id -> bytes, written in order), then an index per root in
  `roots` (the header points to the last)."
  [blocks roots]
  (let [header-size 18
        [offsets end] (reduce (fn [[offs pos] [id bs]]
                                [(assoc offs id pos) (+ pos (alength ^bytes bs))])
                              [{} header-size] blocks)
        index-id (inc (apply max (keys offsets)))
        [indexes last-index-offset _]
        (reduce (fn [[out _ pos] [i root]]
                  (let [offs (assoc offsets (+ index-id i) pos)
                        b    (index-block root offs)]
                    [(conj out b) pos (+ pos (alength ^bytes b))]))
                [[] nil end] (map-indexed vector roots))]
    (byte-array (concat (.getBytes "JEPSEN" "UTF-8") (int-bytes 1) (long-bytes last-index-offset)
                        (mapcat second blocks) (apply concat indexes)))))

(io/copy
  (jepsen-file
    [[1 (block 2 (fressian-bytes [(assoc (test-map [:strict-serializable])
                                         :history (BlockRef. (int 4)))]))]
     [2 (partial-map 3 {:valid? true})]
     [3 (partial-map 0 {:workload {:valid? true} :perf {:valid? true}})]
     [5 (block 4 (fressian-bytes ops))]
     [4 (block 5 (byte-array (concat (long-bytes (count ops)) (long-bytes 0) (int-bytes 5))))]
     [6 (block 2 (fressian-bytes [(assoc (test-map [:snapshot-isolation])
                                         :history (BlockRef. (int 4))
                                         :results (BlockRef. (int 2)))]))]]
    [1 6])
  (io/file dir "test.jepsen"))

(io/copy
  (jepsen-file
    [[1 (partial-map 2 {:name "partial-root" :workload :append})]
     [2 (partial-map 0 {:consistency-models [:serializable] :name "shadowed"})]]
    [1])
  (io/file dir "partial-root.jepsen"))

(println "wrote" (count values) "values, test.fressian, test.jepsen, partial-root.jepsen")
