"""Unit tests of the objective measures: ANSI stripping, tokens, layer names, source locations."""

from runners.probes import analysis

KERAS_STYLE = "Exception.\n\n\x1b[1mInput 0 of layer 'head' is incompatible: expected 64, got (8, 128)\x1b[0m"


def test_strip_ansi_removes_colour_codes_and_keeps_markup_characters():
    raw = "\x1b[31m<tensor> & \x1b[1;4mshape\x1b[0m > 3\x1b[K"
    assert analysis.strip_ansi(raw) == "<tensor> & shape > 3"
    assert analysis.strip_ansi(None) is None


def test_numbers_are_matched_whole():
    assert analysis.names_token("shapes (8x128 and 64x10)", "128")
    assert analysis.names_token("[8,64]", "64")
    assert not analysis.names_token("got 640 and 1280", "64")
    assert not analysis.names_token("line 70", "7")


def test_dtype_spellings_of_every_framework_count():
    assert analysis.names_all_tokens("but got Double and Float", ["float64", "float32"])
    assert analysis.names_all_tokens("f64[8,32] vs f32[32,128]", ["float64", "float32"])
    assert not analysis.names_all_tokens("expected Float", ["float64", "float32"])
    assert analysis.names_all_tokens(None, ["nan"]) is None


def test_names_layer_by_name_or_case_sensitive_class():
    assert analysis.names_layer(analysis.strip_ansi(KERAS_STYLE), "head", "Dense")
    assert analysis.names_layer("Exception encountered when calling Dense.call()", "body", "Dense")
    assert not analysis.names_layer("call_function <built-in function linear>", "head", "Linear")
    assert analysis.names_layer("anything", None, "Linear") is None


def test_points_to_file_and_line_from_frames_and_quoted_text():
    planted = "runners/frameworks/torch/probes.py"
    frames = [["/repo/runners/probes/child.py", 63], ["/repo/runners/frameworks/torch/probes.py", 44]]
    quoted = 'from user code:\n  File "/repo/runners/frameworks/torch/probes.py", line 28, in forward'
    assert analysis.points_to(analysis.source_locations(frames, []), planted, 28) == (True, False)
    assert analysis.points_to(analysis.source_locations(frames, [quoted]), planted, 28) == (True, True)
    elsewhere = analysis.source_locations([], ["at runners/frameworks/jax/probes.py:28"])
    assert analysis.points_to(elsewhere, planted, 28) == (False, False)
    compiler_style = "loc(/repo/runners/frameworks/torch/probes.py:28)"
    assert analysis.points_to(analysis.source_locations([], [compiler_style]), planted, 28) == (True, True)
