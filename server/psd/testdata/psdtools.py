# Prints what psd-tools reads in each PSD named on the command line, as
# JSON, for TestPsdToolsAgrees: a second, independent reader's opinion.
import json
import sys

from psd_tools import PSDImage


def layers(group, prefix, out):
    for layer in group:
        path = prefix + layer.name
        rec = {
            'kind': layer.kind,
            'bbox': list(layer.bbox),
            'blend': layer.blend_mode.name.lower().replace('_', ' '),
            'visible': layer.visible,
            'opacity': layer.opacity,
            'clipping': layer.clipping_layer,
        }
        if layer.kind == 'smartobject':
            cfg = layer.smart_object._config.data
            rec['transform'] = [float(v) for v in cfg.get(b'Trnf')]
            na = cfg.get(b'nonAffineTransform')
            rec['nonAffine'] = [float(v) for v in na] if na is not None else rec['transform']
            rec['id'] = layer.smart_object.unique_id
        out[path] = rec
        if layer.is_group():
            layers(layer, path + '/', out)


result = {}
for name in sys.argv[1:]:
    psd = PSDImage.open(name)
    out = {}
    layers(psd, '', out)
    result[name] = {'width': psd.width, 'height': psd.height, 'depth': psd.depth, 'layers': out}
print(json.dumps(result))
