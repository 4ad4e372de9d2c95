"""Op-table rows: ParseSingleSequenceExample / ParseSequenceExampleV2 (self-checking against TF's recorded
outputs in fixtures/sequence_example_tf.json; see test_parsing_sequence.py)."""
from optable_lib import custom
from test_parsing_sequence import test_single_and_batch_match_tensorflow

ROWS = [custom("ParseSingleSequenceExample", test_single_and_batch_match_tensorflow),
        custom("ParseSequenceExampleV2", test_single_and_batch_match_tensorflow)]
