//! Writes the Rust bindings to CaDiCaL's C API and RustSAT's extension of it
//! for `crates/isocheck-cadical`, with the options `rustsat-cadical` 0.7.5's
//! build script passes to bindgen for its default features and version (the
//! version defines its headers read, `NTRACING`, no `tracing` API), less the
//! layout tests: these assert the sizes of the one struct of function
//! pointers for the pointer width of the machine that generated them, and
//! the checked-in file must compile on any target.
//!
//! Usage: `cadical-bindings CRATE_DIR OUT_FILE` (see scripts/cadical-bindings.sh).

use std::{env, fs, path::Path, process::ExitCode};

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let [crate_dir, out_file] = args.as_slice() else {
        eprintln!("usage: cadical-bindings CRATE_DIR OUT_FILE");
        return ExitCode::from(2);
    };
    match generate(Path::new(crate_dir), Path::new(out_file)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("cadical-bindings: {err}");
            ExitCode::FAILURE
        }
    }
}

fn generate(crate_dir: &Path, out_file: &Path) -> Result<(), String> {
    let version = fs::read_to_string(crate_dir.join("cppsrc/VERSION"))
        .map_err(|e| format!("reading cppsrc/VERSION: {e}"))?;
    let version = version.trim();
    // Paths relative to the crate, as the original's build script gives them
    // (bindgen matches `allowlist_file` against the paths it opens).
    env::set_current_dir(crate_dir)
        .map_err(|e| format!("entering {}: {e}", crate_dir.display()))?;
    let header_path = "cppsrc/src/ccadical.h";
    let bindings = bindgen::Builder::default()
        .rust_target("1.77.0".parse().map_err(|e| format!("{e}"))?)
        .layout_tests(false)
        .clang_arg("-Icppsrc/src")
        .clang_arg("-Icpp-extension")
        .allowlist_file(header_path)
        .allowlist_file("cpp-extension/ccadical_extension.h")
        .blocklist_item("FILE")
        .blocklist_item("_IO_FILE")
        .blocklist_item("__sFILE")
        .blocklist_item("fpos_t")
        .blocklist_function("ccadical_add")
        .blocklist_function("ccadical_assume")
        .blocklist_function("ccadical_solve")
        .blocklist_function("ccadical_constrain")
        .blocklist_function("ccadical_set_option")
        .blocklist_function("ccadical_limit")
        .blocklist_function("ccadical_trace_proof")
        .blocklist_function("ccadical_close_proof")
        .blocklist_function("ccadical_conclude")
        .blocklist_function("ccadical_simplify")
        .blocklist_function("ccadical_declare_one_more_variable")
        // `ccadical.h` is included from `ctracer.h` (CaDiCaL 2.0.0 and later).
        .header("cpp-extension/ctracer.h")
        .allowlist_file("cpp-extension/ctracer.h")
        .blocklist_function("ccadical_trace_api_calls")
        .clang_arg("-DV154")
        .clang_arg("-DV213")
        .clang_arg("-DV220")
        .clang_arg("-DNTRACING")
        .generate()
        .map_err(|e| format!("bindgen: {e}"))?;
    let text = format!(
        "// Generated from CaDiCaL {version} by scripts/cadical-bindings.sh: do not edit.\n{bindings}"
    );
    fs::write(out_file, text).map_err(|e| format!("writing {}: {e}", out_file.display()))
}
