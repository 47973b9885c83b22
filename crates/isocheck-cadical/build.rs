//! Builds the bundled CaDiCaL (`cppsrc/`) and RustSAT's C API extension
//! (`cpp-extension/`) into static libraries, as `rustsat-cadical` 0.7.5's
//! build script does for its default version (2.2.1) and features: the same
//! sources, the same compiler flags and defines, the same compiler feature
//! tests. What this one does not do is run bindgen: the Rust bindings are
//! `src/bindings.rs`, generated ahead of time by
//! `scripts/cadical-bindings.sh`, so the build needs no libclang. Nor does it
//! fetch other CaDiCaL versions (the original's `git` and version features).

use glob::glob;
use std::{
    env,
    fs::{self, File},
    io::Write,
    path::Path,
    process::Command,
};

/// The bundled sources, and the release they are.
const CADICAL_DIR: &str = "cppsrc";
const CADICAL_VERSION: &str = "2.2.1";
const CADICAL_REFERENCE: &str = "refs/tags/rel-2.2.1";

/// The defines `rustsat-cadical` sets for a version at or after each of these
/// releases (all of them, for 2.2.1); `src/bindings.rs` was generated with
/// those of them that its headers read.
const VERSION_DEFINES: [&str; 7] = ["V154", "V160", "V190", "V194", "V200", "V213", "V220"];

/// The `cadical_version` cfgs the Rust code selects its API by.
const VERSION_CFGS: [&str; 6] = ["v1.5.4", "v1.7.0", "v1.9.0", "v2.0.0", "v2.1.3", "v2.2.0"];

macro_rules! check_env_var {
    ($var:expr) => {
        match env::var($var) {
            Err(env::VarError::NotPresent) => None,
            Ok(val) => Some(val),
            Err(err) => panic!("`{}` variable error: {err}", $var),
        }
    };
}

fn main() {
    let out_dir = env::var("OUT_DIR").unwrap();

    #[cfg(all(feature = "quiet", feature = "logging"))]
    compile_error!("cannot combine cadical features quiet and logging");

    check_bindings_version();

    build();

    // Built solver is in out_dir
    println!("cargo:rustc-link-search={out_dir}");
    println!("cargo:rustc-link-search={out_dir}/lib");
    println!("cargo:rustc-link-lib=static=cadical");
    println!("cargo:rustc-link-lib=static=kitten");

    // Link c++ std lib
    // Note: this should be _after_ linking the solver itself so that it is actually pulled in
    #[cfg(target_os = "macos")]
    println!("cargo:rustc-link-lib=dylib=c++");
    #[cfg(not(any(target_os = "macos", target_os = "windows")))]
    println!("cargo:rustc-link-lib=dylib=stdc++");

    // Mark when to rerun the build script
    println!("cargo:rerun-if-changed={CADICAL_DIR}/src/");
    println!("cargo:rerun-if-changed=cpp-extension/");
    println!("cargo:rerun-if-changed=src/bindings.rs");
    println!("cargo:rerun-if-env-changed=CADICAL_RUN_CPP_TESTS");
    println!("cargo:rerun-if-env-changed=CADICAL_FLEXIBLE_ARRAY_MEMBERS");
    println!("cargo:rerun-if-env-changed=CADICAL_CLOSEFROM");
    println!("cargo:rerun-if-env-changed=CADICAL_UNLOCKED_IO");

    set_cfgs();
}

/// Stops the build if the bundled CaDiCaL is not the release the checked-in
/// bindings were generated from (scripts/cadical-bindings.sh writes it into
/// their first lines): new sources need new bindings.
fn check_bindings_version() {
    let bindings = fs::read_to_string("src/bindings.rs").expect("Cannot read src/bindings.rs");
    let mut bundled = fs::read_to_string(Path::new(CADICAL_DIR).join("VERSION"))
        .expect("Cannot read CaDiCaL version");
    bundled.retain(|c| c != '\n');
    assert_eq!(
        bundled, CADICAL_VERSION,
        "the bundled CaDiCaL is {bundled}, this build script is for {CADICAL_VERSION}"
    );
    let stamp = format!("// Generated from CaDiCaL {CADICAL_VERSION} ");
    assert!(
        bindings.lines().any(|line| line.starts_with(&stamp)),
        "src/bindings.rs was not generated from CaDiCaL {CADICAL_VERSION}: run scripts/cadical-bindings.sh"
    );
}

/// Sets custom `rustc` `--cfg` arguments for features only present in some version
fn set_cfgs() {
    let values: Vec<String> = VERSION_CFGS.iter().map(|v| format!("\"{v}\"")).collect();
    println!(
        "cargo:rustc-check-cfg=cfg(cadical_version, values({}))",
        values.join(", ")
    );
    for version in VERSION_CFGS {
        println!("cargo:rustc-cfg=cadical_version=\"{version}\"");
    }
}

fn set_defines(build: &mut cc::Build) {
    let run_cpp_tests = check_env_var!("CADICAL_RUN_CPP_TESTS").map_or(true, |val| {
        let val_lower = val.to_lowercase();
        match val_lower.trim() {
            "1" | "true" => true,
            "0" | "false" => false,
            _ => panic!("`CADICAL_RUN_CPP_TESTS` variable invalid value: {val}"),
        }
    });
    if !has_cpp_feature(CppFeature::FlexibleArrayMembers, run_cpp_tests) {
        build.define("NFLEXIBLE", None);
    }
    if !has_cpp_feature(CppFeature::UnlockedIo, run_cpp_tests) {
        build.define("NUNLOCKED", None);
    }
    if !has_cpp_feature(CppFeature::Closefrom, run_cpp_tests) {
        build.define("NCLOSEFROM", None);
    }
    for define in VERSION_DEFINES {
        build.define(define, None);
    }
}

fn build() {
    let cadical_dir = Path::new(CADICAL_DIR);
    // We specify the build manually here instead of calling make for better portability
    let src_files = glob(&format!("{CADICAL_DIR}/src/*.cpp"))
        .unwrap()
        .filter_map(|res| {
            if let Ok(p) = res {
                if let Some(name) = p.file_name() {
                    if name == "cadical.cpp" || name == "mobical.cpp" || name == "ipasir.cpp" {
                        return None; // Filter out application files and IPASIR interface
                    }
                }
                Some(p)
            } else {
                None
            }
        });
    // Setup build configuration
    let mut cadical_build = default_build();
    cadical_build
        .opt_level(3)
        .define("NDEBUG", None)
        .define("NCONTRACTS", None) // --no-contracts
        .warnings(false);
    cadical_build.define("NTRACING", None); // --no-tracing
    #[cfg(feature = "quiet")]
    cadical_build.define("QUIET", None); // --quiet
    #[cfg(feature = "logging")]
    cadical_build.define("LOGGING", None); // --log
    set_defines(&mut cadical_build);

    let out_dir = std::env::var("OUT_DIR").unwrap();
    let out_dir = Path::new(&out_dir);

    // Generate build header
    let mut build_header =
        File::create(out_dir.join("build.hpp")).expect("Could not create CaDiCaL header");
    let (compiler_desc, compiler_flags) = get_compiler_description(&cadical_build.get_compiler());
    write!(
        build_header,
        "#define VERSION \"{}\"\n#define IDENTIFIER \"{}\"\n#define COMPILER \"{}\"\n#define FLAGS \"{}\"\n#define DATE \"{}\"",
        CADICAL_VERSION,
        CADICAL_REFERENCE,
        compiler_desc,
        compiler_flags,
        chrono::Utc::now()
    )
    .expect("Failed to write CaDiCaL build.hpp");
    // Build Kitten
    let mut kitten_build = cadical_build.clone();
    kitten_build
        .cpp(false)
        .std("c99")
        .include(cadical_dir.join("src"))
        .file(format!("{CADICAL_DIR}/src/kitten.c"))
        .compile("kitten");
    // Build CaDiCaL
    cadical_build
        .include(out_dir)
        .include(cadical_dir.join("src"))
        .include("cpp-extension")
        .files(src_files)
        .compile("cadical");
}

/// Gets a description of the C(pp) compiler used and the used flags
fn get_compiler_description(compiler: &cc::Tool) -> (String, String) {
    let compiler_command = compiler.to_command();
    let mut first_line = true;
    let compiler_version = match Command::new(compiler_command.get_program())
        .arg("--version")
        .output()
    {
        Ok(output) => {
            let mut version = String::from_utf8(output.stdout).unwrap();
            version.retain(|c| {
                if first_line && c == '\n' {
                    first_line = false;
                    false
                } else {
                    first_line
                }
            });
            version
        }
        Err(_) => String::from(compiler_command.get_program().to_str().unwrap()),
    };
    let compiler_flags = compiler.cflags_env();
    (
        compiler_version,
        String::from(compiler_flags.to_str().unwrap()),
    )
}

/// Gets a [`cc::Build`] with the default configuration applied
/// (used in main build and when checking Cpp features)
fn default_build() -> cc::Build {
    let mut build = cc::Build::new();
    build.cpp(true).std("c++11");
    build
}

#[derive(Clone, Copy, Debug)]
enum CppFeature {
    FlexibleArrayMembers,
    UnlockedIo,
    Closefrom,
}

impl CppFeature {
    fn env_var(self) -> &'static str {
        match self {
            CppFeature::FlexibleArrayMembers => "CADICAL_FLEXIBLE_ARRAY_MEMBERS",
            CppFeature::UnlockedIo => "CADICAL_UNLOCKED_IO",
            CppFeature::Closefrom => "CADICAL_CLOSEFROM",
        }
    }

    fn name_content(self) -> (&'static str, &'static str) {
        match self {
            CppFeature::FlexibleArrayMembers => {
                ("has-flexible-array-members", FLEXIBLE_ARRAY_MEMBERS_TEST)
            }
            CppFeature::UnlockedIo => ("has-unlocked-io", UNLOCKED_IO_TEST),
            CppFeature::Closefrom => ("has-closefrom", CLOSEFROM_TEST),
        }
    }
}

const FLEXIBLE_ARRAY_MEMBERS_TEST: &str = r"
#include <cstdlib>
struct S {
  int size;
  int flexible_array_member[];
};
int main () {
  struct S * s = (struct S*) malloc (12);
  s->size = 2;
  s->flexible_array_member[0] = 1;
  s->flexible_array_member[1] = -1;
  int res = 0;
  for (int i = 0; i != s->size; i++)
    res += s->flexible_array_member[i];
  return res;
}
";

// As in rustsat-cadical 0.7.5, this test does not compile (`path` is not
// declared), so CaDiCaL is built with `NUNLOCKED`; kept as it is so that the
// solver is built exactly as the original builds it.
const UNLOCKED_IO_TEST: &str = r#"
#include <cstdio>
int main () {
  FILE * file = stdout;
  if (!file) return 1;
  if (putc_unlocked (42, file) != 42) return 1;
  if (fclose (file)) return 1;
  file = fopen (path, "r");
  if (!file) return 1;
  if (getc_unlocked (file) != 42) return 1;
  if (fclose (file)) return 1;
  return 0;
}
"#;

const CLOSEFROM_TEST: &str = r#"
extern "C" {
#include <unistd.h>
};
int main () {
  closefrom (0);
  return 0;
}
"#;

/// Checks whether a Cpp feature is available
///
/// The actual checks are taken from CaDiCaL's `configure` script
fn has_cpp_feature(feature: CppFeature, run: bool) -> bool {
    if let Some(val) = check_env_var!(feature.env_var()) {
        let val_lower = val.to_lowercase();
        match val_lower.trim() {
            "1" | "true" => return true,
            "0" | "false" => return false,
            "auto" => (),
            _ => panic!("`{}` variable invalid value: {val}", feature.env_var()),
        }
    }

    let out_dir = env::var("OUT_DIR").unwrap();
    let (name, content) = feature.name_content();

    // write test to file
    let test_file = format!("{out_dir}/{name}.cpp");
    {
        let mut test_file = fs::File::create(&test_file).expect("cannot open test file");
        write!(test_file, "{content}").expect("failed to write test file");
    }

    // compile and run test
    let out_file = format!("{out_dir}/{name}.out");
    let mut compile = default_build().get_compiler().to_command();
    let compile = compile
        .current_dir(out_dir)
        .args([&test_file, "-o", &out_file])
        .output()
        .expect("failed to run test compilation");
    if !compile.status.success() {
        return false;
    }
    if run {
        let output = Command::new(out_file)
            .output()
            .expect("failed to execute compiled test");
        output.status.success()
    } else {
        true
    }
}
