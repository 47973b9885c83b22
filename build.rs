//! Compiles `cpp/propagator.cpp`, the C face of CaDiCaL's external
//! propagator, when the CaDiCaL backend is enabled. It links to the CaDiCaL
//! that `rustsat-cadical` builds.

fn main() {
    println!("cargo:rerun-if-changed=cpp");
    #[cfg(feature = "cadical")]
    cc::Build::new()
        .cpp(true)
        .std("c++11")
        .opt_level(2)
        // Of the flags rustsat-cadical builds CaDiCaL with, `NTRACING` changes
        // the layout of `CaDiCaL::Solver`.
        .define("NDEBUG", None)
        .define("NTRACING", None)
        .warnings(false)
        .file("cpp/propagator.cpp")
        .compile("isocheck_propagator");
}
