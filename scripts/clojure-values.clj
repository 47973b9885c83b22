;; Writes tests/data/clojure-values.tsv: what real Clojure says about the EDN
;; scalars whose spelling varies, for tests/value_equality.rs to hold
;; isocheck's value equality to. Run from the repository root:
;;
;;   clojure scripts/clojure-values.clj > tests/data/clojure-values.tsv
;;
;; (Debian's `clojure` 1.11.1 on OpenJDK 17 wrote the committed file.) Every
;; value is read with clojure.edn/read-string, as elle-cli reads histories.
;; Lines, tab-separated:
;;
;;   inst    TEXT  MILLIS | error   java.util.Date's getTime
;;   uuid    TEXT  STRING | error   java.util.UUID's toString
;;   decimal TEXT  UNSCALED SCALE | error   BigDecimal.stripTrailingZeros
;;   float   TEXT  BITS | error     Double.doubleToLongBits (0 for both zeros)
;;   pair    A     B  true | false  (= A B)
;;
;; The random parts come from a seeded java.util.Random: the output is the
;; same on every run.
(require '[clojure.edn :as edn]
         '[clojure.string :as str])

(def rng (java.util.Random. 32))
(defn rand-int* [n] (.nextInt rng n))
(defn pick [xs] (nth xs (rand-int* (count xs))))
(defn pad [n width] (format (str "%0" width "d") n))

(defn result [f text]
  (try (str (f (edn/read-string text)))
       (catch Throwable _ "error")))

(defn line [& cells] (println (str/join "\t" cells)))

;; #inst: random fields, mostly valid, some out of range; every precision
;; and offset clojure.instant reads.
(defn inst-text []
  (let [year (pick [(rand-int* 10000) (+ 1500 (rand-int* 200)) (+ 1900 (rand-int* 200))])
        month (inc (rand-int* 12))
        day (inc (rand-int* (pick [28 31])))
        hour (rand-int* (pick [24 25]))
        minute (pick [59 (rand-int* 60)])
        second (pick [60 (rand-int* 60)])
        frac (apply str (repeatedly (rand-int* 12) #(rand-int* 10)))
        offset (pick ["" "Z" "-00:00"
                      (str (pick ["+" "-"]) (pad (rand-int* 24) 2) ":" (pad (rand-int* 60) 2))])
        parts (rand-int* 7)]
    (str (pad year 4)
         (when (> parts 0) (str "-" (pad month 2)))
         (when (> parts 1) (str "-" (pad day 2)))
         (when (> parts 2) (str "T" (pad hour 2)))
         (when (> parts 3) (str ":" (pad minute 2)))
         (when (> parts 4) (str ":" (pad second 2)))
         (when (and (> parts 5) (seq frac)) (str "." frac))
         (when (> parts 2) offset))))

(defn inst-line [s]
  (let [text (str "#inst \"" s "\"")]
    (line "inst" text (result #(.getTime ^java.util.Date %) text))))

(doseq [s ["1582-10-04T00:00:00Z" "1582-10-05T00:00:00Z" "1582-10-14T00:00:00Z"
           "1582-10-15T00:00:00Z" "1582-10-15T01:00:00+02:00" "1582-10-14T23:00:00-02:00"
           "1582-10-04T23:00:00-02:00" "0000-01-01T00:00:00Z" "0000-03-01" "1500-02-29"
           "1600-02-29" "1900-02-29" "2000-02-29" "2020-12-31T23:59:60Z" "2020-12-31T23:58:60Z"
           "9999-12-31T23:59:59.999-23:59" "0000-01-01T00:00:00+23:59" "2020"
           "2020-01-01T00:00:00.123456789123Z" "2020-01-01T24:00:00Z" "2020-01-01T00:00Z"
           "2020-01-01T00Z" "2020-01-01Z" "2020Z" "2020-01-01T00:00:00+24:00"
           "2020-01-01T00:00:00.Z" "2020-01-01t00:00:00Z" "2020-01-01T00:00:00z" " 2020"
           "20200" "202" "2020-1-01" "2020-01-01T00:00:00.000+01:60" "2020-00-01" "2020-01-00"]]
  (inst-line s))
(dotimes [_ 3000] (inst-line (inst-text)))
(line "inst" "#inst 5" (result identity "#inst 5"))

;; #uuid: random bits, in both cases, and the forms java.util.UUID also reads.
(defn hex [n] (apply str (repeatedly n #(pick "0123456789abcdef"))))
(defn uuid-line [s]
  (let [text (str "#uuid \"" s "\"")]
    (line "uuid" text (result str text))))
(dotimes [_ 300]
  (let [u (str (hex 8) "-" (hex 4) "-" (hex 4) "-" (hex 4) "-" (hex 12))]
    (uuid-line u)
    (uuid-line (str/upper-case u))
    (uuid-line (apply str (map #(if (zero? (rand-int* 2)) (Character/toUpperCase ^char %) %) u)))))
(doseq [s ["1-2-3-4-5" "+1-2-3-4-5" "123456789-1-1-1-1" "6ba7b810-9dad-11d1-80b4-00c04fd430c8a"
           "6ba7b8109dad11d180b400c04fd430c8" "+ba7b810-9dad-11d1-80b4-00c04fd430c8"
           "6ba7b810-9dad-11d1-80b4-00c04fd430cg" "" "6ba7b810_9dad-11d1-80b4-00c04fd430c8"]]
  (uuid-line s))

;; BigDecimal: random digits, fraction, exponent, and the exponent limits.
(defn decimal-text []
  (let [digits (apply str (repeatedly (inc (rand-int* 6)) #(pick "0000123456789")))
        digits (str/replace digits #"^0+(?=.)" "")
        frac (apply str (repeatedly (rand-int* 5) #(pick "0000123456789")))]
    (str (pick ["" "-" "+"])
         digits
         (pick ["" (str "." frac)])
         (pick ["" "" (str (pick ["e" "E"]) (pick ["" "+" "-"]) (rand-int* 30))])
         "M")))
(defn decimal-line [text]
  (line "decimal" text
        (result #(let [^java.math.BigDecimal s (.stripTrailingZeros ^java.math.BigDecimal %)]
                   (if (zero? (.signum s)) "0 0" (str (.unscaledValue s) " " (.scale s))))
                text)))
(doseq [t ["10M" "1E1M" "1e1M" "100M" "1E2M" "0M" "-0M" "0.000M" "0E5M" "0E-5M" "1.50M" "1.5M"
           "-1.0M" "1E2147483647M" "1E2147483648M" "1E-2147483648M" "1E-2147483647M"
           "12E2147483647M" "0.1E-2147483647M" "0.01E2147483647M" "1.5E-2147483647M"
           "1E00000000002147483647M" "1E99999999999M" "123.456E-3M" "0.000000000000000000000000001M"
           "100000000000000000000000000000M" "1.M" "-0.0E0M"]]
  (decimal-line t))
(dotimes [_ 1500] (decimal-line (decimal-text)))

;; Doubles: spellings of zero, infinities and ordinary values.
(defn float-line [text]
  ;; = on doubles is Java's ==: 0.0 and -0.0 are one value (the pairs below
  ;; show it), whose bits differ.
  (line "float" text (result #(if (zero? (double %)) 0 (Double/doubleToLongBits (double %))) text)))
(doseq [t ["0.0" "-0.0" "0e0" "-0e5" "0.0e-3" "1e400" "-1e400" "##Inf" "##-Inf" "1.0" "1.00"
           "1e0" "10e-1" "0.1" "1e-400" "-1e-400" "4.9e-324" "2.2250738585072014E-308"
           "1.7976931348623157e308" "1.7976931348623159e308" "123456789012345678901234567890.0"
           "0.30000000000000004" "1."]]
  (float-line t))

;; `=` across categories and inside collections.
(def pool
  ["1" "1N" "+1" "01" "0x1" "2r1" "1.0" "1M" "1.0M" "2/2" "4/2" "2" "2N" "1/2" "2/4" "0.5" "0.5M"
   "0" "-0" "0N" "0/5" "0.0" "-0.0" "0M" "0.00M" "##Inf" "1e400" "##-Inf" "10M" "1E1M" "10.0"
   "\"a\"" ":a" "a" "\\a" "\\u0061" "\\o141" "97" "\"\\u0061\"" "\"\\uD83D\\uDE00\"" "\"\uD83D\uDE00\""
   "nil" "false" "true" "[]" "()" "{}" "#{}" "[1 2]" "(1 2)" "[1N 2.0]" "[0.0]" "(-0.0)"
   "#{1 2}" "#{2N 1}" "{:a 1M}" "{:a 1.00M}" "{:a 1}" "[\"a\"]" "[:a]"
   "#inst \"2020-01-01T00:00:00Z\"" "#inst \"2020-01-01T01:00:00+01:00\"" "#inst \"2020\""
   "#inst \"2020-01-01T00:00:00.0009Z\"" "#inst \"2020-01-01T00:00:00.001Z\""
   "#uuid \"6ba7b810-9dad-11d1-80b4-00c04fd430c8\"" "#uuid \"6BA7B810-9DAD-11D1-80B4-00C04FD430C8\""
   "\"6ba7b810-9dad-11d1-80b4-00c04fd430c8\""])
(doseq [a pool b pool]
  (line "pair" a b (try (str (= (edn/read-string a) (edn/read-string b)))
                       (catch Throwable _ "error"))))
