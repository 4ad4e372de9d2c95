"""tf.flags / tf.app.flags / tf.app.run: absl's parsing and TF1's run, in subprocesses (flags are global)."""
import os
import subprocess
import sys
import textwrap

import lens as tf

SCRIPT = textwrap.dedent("""
    import sys
    import lens as tf

    flags = tf.app.flags
    flags.DEFINE_string("name", "world", "who to greet")
    flags.DEFINE_integer("steps", 3, "how many steps", lower_bound=1)
    flags.DEFINE_float("lr", 0.5, "learning rate")
    flags.DEFINE_boolean("fast", False, "go fast")
    flags.DEFINE_enum("mode", "train", ["train", "eval"], "what to do")
    flags.DEFINE_list("layers", "8,4", "layer sizes")
    flags.DEFINE_multi_string("tag", [], "tags")
    tf.flags.DEFINE_string(flag_name="old", default_value="o", docstring="TF1's keyword names")
    FLAGS = tf.flags.FLAGS

    def main(argv):
        print(repr((FLAGS.name, FLAGS.steps, FLAGS.lr, FLAGS.fast, FLAGS.mode, FLAGS.layers, FLAGS.tag,
                    FLAGS.old, argv[1:])))
        return 3 if FLAGS.fast else 0

    if __name__ == "__main__":
        tf.app.run()
""")


def run_script(tmp_path, *args):
    path = tmp_path / "prog.py"
    path.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run([sys.executable, str(path)] + list(args), capture_output=True, text=True, env=env,
                          timeout=60)


def test_defaults_parsing_and_exit_code(tmp_path):
    r = run_script(tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == repr(("world", 3, 0.5, False, "train", ["8", "4"], [], "o", []))
    r = run_script(tmp_path, "--name=lens", "--steps", "7", "--lr=0.1", "--fast", "--mode=eval", "--layers=1,2,3",
                   "--tag=a", "--tag", "b", "--old=new", "extra_arg", "--unknown_flag=1")
    assert r.returncode == 3, r.stderr                       # main's return value is the exit code
    assert r.stdout.strip() == repr(("lens", 7, 0.1, True, "eval", ["1", "2", "3"], ["a", "b"], "new",
                                     ["extra_arg", "--unknown_flag=1"]))   # unknown flags reach main, as TF1


def test_bad_values_and_help(tmp_path):
    r = run_script(tmp_path, "--steps=0")
    assert r.returncode != 0 and "steps" in r.stderr and "1" in r.stderr
    r = run_script(tmp_path, "--helpfull")
    assert r.returncode == 1                                  # absl's help flags exit 1 (so does TF 2.21)
    assert "--name: who to greet" in r.stdout and "(default: 'world')" in r.stdout and "absl.flags" in r.stdout


def test_flags_namespace_is_absl_compatible():
    import absl.flags
    assert tf.flags.DEFINE_multi_string is not None and tf.app.flags.FlagValues is absl.flags.FlagValues
    absl.flags.DEFINE_string("lens_shared_flag", "v", "defined through absl")
    assert tf.flags.FLAGS["lens_shared_flag"].value == "v"    # one FLAGS for absl and tf.flags
    fv = tf.flags.FlagValues()
    tf.flags.DEFINE_integer("n", 1, "n", flag_values=fv)
    fv(["prog", "--n=4"])
    assert fv.n == 4
