(ns jepsen.store
  "Test stand-in for jepsen.store/path (Jepsen is not installable here): with
  one argument, the test's store directory <base-dir>/<name>/<start-time>.
  The real one formats a DateTime :start-time; strings are taken as they are
  by both."
  (:require [clojure.java.io :as io]))

(def base-dir "store")

(defn path
  ([test]
   (assert (:name test))
   (assert (:start-time test))
   (io/file base-dir (:name test) (str (:start-time test))))
  ([test & args]
   (->> args flatten (remove nil?) (map str) (apply io/file (path test)))))
