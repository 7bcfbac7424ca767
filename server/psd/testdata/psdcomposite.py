# Draws each PSD named on the command line with psd-tools (its own
# compositor, not the merged image the file stores) and writes
# OUT/<base name>.png, for TestMergedImage: the open-source reference's
# picture of the same file. A file psd-tools cannot draw is named on
# stderr and skipped.
import os
import sys

from psd_tools import PSDImage

out = sys.argv[1]
for name in sys.argv[2:]:
    try:
        psd = PSDImage.open(name)
        img = psd.composite(force=True)
        if img is None:
            raise ValueError('nothing drawn')
        img.convert('RGBA').save(os.path.join(out, os.path.basename(name) + '.png'))
    except Exception as e:  # noqa: BLE001 - any failure is reported, not fatal
        print('%s: %s' % (name, e), file=sys.stderr)
