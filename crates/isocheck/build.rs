//! Compiles `cpp/propagator.cpp`, the C face of CaDiCaL's external
//! propagator, and `cpp/memory.cpp`, the global operator new and delete that
//! count C++ allocations against the memory budget, when the CaDiCaL backend
//! is enabled. It links to the CaDiCaL that `rustsat-cadical` builds.

fn main() {
    println!("cargo:rerun-if-changed=cpp");
    #[cfg(feature = "cadical")]
    cc::Build::new()
        .cpp(true)
        // C++14: sized operator delete.
        .std("c++14")
        .opt_level(2)
        // Of the flags rustsat-cadical builds CaDiCaL with, `NTRACING` changes
        // the layout of `CaDiCaL::Solver`.
        .define("NDEBUG", None)
        .define("NTRACING", None)
        .warnings(false)
        .file("cpp/propagator.cpp")
        .file("cpp/memory.cpp")
        .compile("isocheck_propagator");
}
