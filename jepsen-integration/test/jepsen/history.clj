(ns jepsen.history
  "Test stand-in for jepsen.history's Op record (Jepsen is not installable
  here): a record with the same name and fields, so it prints as
  #jepsen.history.Op{...}, as a real Jepsen history does.")

(defrecord Op [index time type process f value])
