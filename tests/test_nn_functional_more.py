"""The ``nn.functional`` names of issue #28 against PyTorch 2.13, beyond the op_db replay:
keyword forms, kinks, 3-d and 5-d cases, seeded random draws, errors, modules.

Each case is code run as written with ``torch`` = dyngraph; the recorded values are PyTorch's
(``torch`` 2.13, float64), kept as digests -- per output and per gradient of a fixed
cosine-weighted sum: the shape, the sum, a cosine-weighted sum and the sum of absolute
values -- which see every element.  Errors: PyTorch's type and first line.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngraph as torch
import dyngraph.nn as nn
import dyngraph.nn.functional as F

# (name, code): code builds leaves from x(*shape) and sets `out`
CASES = [
    ("conv_transpose2d_output_padding_over_stride",
     "a = x(2, 4, 4); w = x(2, 2, 4, 5, s=0.3); b = x(4, s=0.1); leaves = [a, w, b]\n"
     "out = F.conv_transpose2d(a, w, b, stride=(3, 2), padding=(1, 2), output_padding=(2, 3), groups=2, dilation=(4, 4))"),
    ("max_pool2d_dilation_indices",
     "a = x(1, 2, 6, 7); leaves = [a]\n"
     "out = F.max_pool2d(a, 2, stride=2, padding=1, dilation=2, return_indices=True)"),
    ("max_pool1d_indices_ceil",
     "a = x(2, 3, 8); leaves = [a]\n"
     "out = F.max_pool1d(a, 3, stride=2, ceil_mode=True, return_indices=True)"),
    ("avg_pool2d_divisor_override",
     "a = x(1, 2, 5, 6); leaves = [a]\n"
     "out = F.avg_pool2d(a, 3, stride=2, padding=1, divisor_override=4)"),
    ("avg_pool3d_exclude_pad_ceil",
     "a = x(1, 2, 4, 5, 5); leaves = [a]\n"
     "out = F.avg_pool3d(a, 2, stride=2, padding=1, ceil_mode=True, count_include_pad=False)"),
    ("max_pool3d_overlap",
     "a = x(1, 1, 4, 4, 5); leaves = [a]\n"
     "out = F.max_pool3d(a, (2, 3, 2), stride=1, return_indices=True)"),
    ("adaptive_max_pool2d_indices",
     "a = x(2, 5, 7); leaves = [a]\n"
     "out = F.adaptive_max_pool2d(a, (3, 4), return_indices=True)"),
    ("adaptive_avg_pool3d",
     "a = x(1, 2, 5, 3, 4); leaves = [a]\n"
     "out = F.adaptive_avg_pool3d(a, (2, 2, 3))"),
    ("max_unpool2d_duplicate_indices",
     "a = x(1, 1, 5, 5); v, i = F.max_pool2d(a, 3, stride=1, return_indices=True); u = v.detach().clone().requires_grad_(); leaves = [u]\n"
     "out = F.max_unpool2d(u, i, 3, stride=1)"),
    ("fractional_max_pool2d_given_samples",
     "a = x(1, 2, 7, 8); leaves = [a]\n"
     "out = F.fractional_max_pool2d(a, 2, output_size=(4, 5), return_indices=True, _random_samples=torch.tensor([[[0.3, 0.8], [0.55, 0.1]]], dtype=a.dtype))"),
    ("pad_constant_negative",
     "a = x(2, 3, 5); leaves = [a]\n"
     "out = F.pad(a, (-1, 2, 1, -2), value=0.5)"),
    ("pad_replicate_negative",
     "a = x(1, 2, 4, 4); leaves = [a]\n"
     "out = F.pad(a, (-3, 2, 1, -1), mode='replicate')"),
    ("pad_reflect_negative",
     "a = x(1, 2, 5); leaves = [a]\n"
     "out = F.pad(a, (-3, 2), mode='reflect')"),
    ("pad_circular_negative",
     "a = x(1, 1, 3, 4); leaves = [a]\n"
     "out = F.pad(a, (2, -1, -1, 1), mode='circular')"),
    ("linear_vector_input",
     "a = x(3); w = x(4, 3, s=0.2); b = x(4); leaves = [a, w, b]\n"
     "out = F.linear(a, w, b)"),
    ("normalize_p0_and_negative",
     "a = x(2, 3, 4); leaves = [a]\n"
     "out = (F.normalize(a, p=0.0, dim=-1), F.normalize(a, p=-1.0, dim=1))"),
    ("interpolate_area_3d_and_5d",
     "a = x(1, 2, 7); c = x(1, 1, 3, 4, 5); leaves = [a, c]\n"
     "out = (F.interpolate(a, size=3, mode='area'), F.interpolate(c, size=(2, 3, 2), mode='area'))"),
    ("grid_sample_bicubic_reflection",
     "a = x(1, 2, 4, 5); g = x(1, 3, 2, 2, s=0.9); leaves = [a, g]\n"
     "out = F.grid_sample(a, g, mode='bicubic', padding_mode='reflection', align_corners=False)"),
    ("grid_sample_3d_border_aligned",
     "a = x(1, 1, 3, 4, 2); g = x(1, 2, 1, 3, 3, s=1.1); leaves = [a, g]\n"
     "out = F.grid_sample(a, g, mode='bilinear', padding_mode='border', align_corners=True)"),
    ("affine_grid_2d",
     "t = x(2, 2, 3, s=0.5); leaves = [t]\n"
     "out = F.affine_grid(t, (2, 1, 3, 4), align_corners=False)"),
    ("ctc_loss_mean",
     "a = x(6, 2, 4).log_softmax(2).detach().requires_grad_(); leaves = [a]\n"
     "out = F.ctc_loss(a, torch.tensor([[1, 1, 2], [3, 2, 0]]), torch.tensor([6, 5]), torch.tensor([3, 2]))"),
    ("ctc_loss_zero_infinity_none",
     "a = x(3, 2, 4).log_softmax(2).detach().requires_grad_(); leaves = [a]\n"
     "out = F.ctc_loss(a, torch.tensor([1, 2, 3, 1, 1]), [3, 2], [3, 2], reduction='none', zero_infinity=True)"),
    ("embedding_bag_mean_padding",
     "w = x(6, 3); leaves = [w]\n"
     "out = F.embedding_bag(torch.tensor([1, 2, 4, 4, 0, 3]), w, torch.tensor([0, 2, 2, 5]), mode='mean', padding_idx=4)"),
    ("embedding_bag_max",
     "w = x(6, 3); leaves = [w]\n"
     "out = F.embedding_bag(torch.tensor([[1, 2, 5], [0, 0, 3]]), w, mode='max')"),
    ("fold_unfold",
     "a = x(2, 12, 9); c = x(2, 3, 4, 6, s=0.5); leaves = [a, c]\n"
     "out = (F.fold(a, (4, 5), 2, dilation=(1, 2), padding=(1, 0), stride=(2, 1)), F.unfold(c, (2, 3), padding=1, stride=2))"),
    ("multilabel_margin_duplicates",
     "a = x(2, 4); leaves = [a]\n"
     "out = F.multilabel_margin_loss(a, torch.tensor([[3, 3, 0, -1], [1, -1, 2, 0]]), reduction='none')"),
    ("multi_margin_p2_weight",
     "a = x(3, 4); w = x(4, s=0.2); leaves = [a]\n"
     "out = F.multi_margin_loss(a, torch.tensor([0, 3, 1]), p=2, margin=0.7, weight=w.detach().abs())"),
    ("bilinear_layer",
     "a = x(2, 3); c = x(2, 4, s=0.3); w = x(5, 3, 4, s=0.2); b = x(5); leaves = [a, c, w, b]\n"
     "out = F.bilinear(a, c, w, b)"),
    ("conv3d_groups_dilation",
     "a = x(1, 4, 5, 5, 4); w = x(6, 2, 2, 3, 2, s=0.3); b = x(6); leaves = [a, w, b]\n"
     "out = F.conv3d(a, w, b, stride=(2, 1, 1), padding=(1, 0, 1), dilation=(1, 2, 1), groups=2)"),
    ("conv_transpose3d",
     "a = x(1, 2, 2, 3, 2); w = x(2, 3, 2, 2, 3, s=0.3); leaves = [a, w]\n"
     "out = F.conv_transpose3d(a, w, stride=(2, 1, 2), padding=(1, 0, 1), output_padding=(1, 0, 1))"),
    ("local_response_norm_4d",
     "a = x(1, 5, 2, 3); leaves = [a]\n"
     "out = F.local_response_norm(a, 3, alpha=0.3, beta=0.6, k=1.5)"),
    ("prelu_per_channel",
     "a = x(2, 3, 4); w = x(3, s=0.2); leaves = [a, w]\n"
     "out = F.prelu(a, w)"),
    ("dropout2d_seeded",
     "torch.manual_seed(7); a = x(3, 4, 2, 2); leaves = [a]\n"
     "out = F.dropout2d(a, 0.4)"),
    ("alpha_dropout_seeded",
     "torch.manual_seed(7); a = x(3, 4); leaves = [a]\n"
     "out = F.alpha_dropout(a, 0.3, training=True)"),
    ("gaussian_nll_clamped_var",
     "a = x(2, 3); t = x(2, 3, s=0.3); v = (x(2, 1, s=0.01) ** 2).detach().requires_grad_(); leaves = [a, v]\n"
     "out = F.gaussian_nll_loss(a, t, v, full=True, eps=1e-3)"),
]
ERRORS = [
    ("softshrink_negative", "F.softshrink(x(3), -0.5)"),
    ("pdist_3d", "F.pdist(x(2, 3, 3))"),
    ("channel_shuffle_groups", "F.channel_shuffle(x(2, 3, 4), 2)"),
    ("multi_margin_p3", "F.multi_margin_loss(x(2, 3), torch.tensor([0, 1]), p=3)"),
    ("unfold_5d", "F.unfold(x(1, 2, 3, 4, 5), 2)"),
    ("unpool_bad_index", "F.max_unpool2d(x(1, 1, 2, 2), torch.tensor([[[[0, 1], [2, 100]]]]), 2)"),
    ("max_pool3d_big_pad", "F.max_pool3d(x(1, 1, 4, 4, 4), 3, padding=2)"),
    ("triplet_dims", "F.triplet_margin_loss(x(3, 4), x(3, 4), x(4))"),
    ("cosine_embedding_target", "F.cosine_embedding_loss(x(3, 4), x(3, 4), torch.ones(3, 3))"),
    ("grid_sample_mode", "F.grid_sample(x(1, 1, 2, 2), x(1, 1, 1, 2), mode='cubic')"),
    ("conv_transpose3d_channels", "F.conv_transpose3d(x(1, 3, 2, 2, 2), x(2, 2, 1, 1, 1))"),
    ("embedding_bag_offsets_2d", "F.embedding_bag(torch.tensor([[0, 1]]), x(3, 2), torch.tensor([0]))"),
    ("fold_blocks", "F.fold(x(1, 4, 5), (3, 3), 2)"),
]

EXPECTED = {'adaptive_avg_pool3d': ([([1, 2, 2, 2, 3], 0.03051885219, -0.5438576976, 6.496473099)],
                         [([1, 2, 5, 3, 4], 1.356860143, -0.2370558137, 8.486735531)]),
 'adaptive_max_pool2d_indices': ([([2, 3, 4], 39.33741219, 1.450336539, 39.33741219),
                                  ([2, 3, 4], 395.0, 87.19461108, 395.0)],
                                 [([2, 5, 7], 1.356860143, 2.869685246, 7.46703973)]),
 'affine_grid_2d': ([([2, 3, 4, 2], 14.12358916, 1.918220913, 33.02399998)],
                    [([2, 2, 3], 0.2982060139, -0.7058890103, 10.09767221)]),
 'alpha_dropout_seeded': ([([3, 4], -4.970173826, 3.816361238, 12.36003851)],
                          [([3, 4], 0.4750460378, -0.812240785, 5.131755453)]),
 'avg_pool2d_divisor_override': ([([1, 2, 3, 3], 0.1135616155, 0.5674500387, 2.51122188)],
                                 [([1, 2, 5, 6], 0.08911131672, -0.1691245031, 9.577259602)]),
 'avg_pool3d_exclude_pad_ceil': ([([1, 2, 3, 3, 3], 1.257140278, -0.9081200625, 31.11484151)],
                                 [([1, 2, 4, 5, 5], -0.4831698113, 0.7316174304, 35.0427459)]),
 'bilinear_layer': ([([2, 5], 3.713641018, 0.5989519364, 15.58647379)],
                    [([2, 3], -2.373053988, 0.928959005, 2.613477289),
                     ([2, 4], 0.006331416982, 0.3838715373, 5.38120851),
                     ([5, 3, 4], 0.1204105588, -1.46854936, 27.15443761),
                     ([5], 1.382140189, 3.031227382, 4.254186984)]),
 'conv3d_groups_dilation': ([([1, 6, 3, 1, 5], 36.72433614, -1.338081927, 117.4669854)],
                            [([1, 4, 5, 5, 4], 1.23057631, 0.009053770341, 21.58576908),
                             ([6, 2, 2, 3, 2], 14.99415267, -4.370405442, 530.8161857),
                             ([6], -0.5403266251, 2.345484813, 3.812314102)]),
 'conv_transpose2d_output_padding_over_stride': ([([4, 22, 22], -10.38311891, -1.255450992,
                                                   603.1922427)],
                                                 [([2, 4, 4], -0.280320896, -2.419392999,
                                                   42.02183002),
                                                  ([2, 2, 4, 5], -1.320583226, 10.70773235,
                                                   182.0719791),
                                                  ([4], 1.647226747, -0.2249248843, 5.151130802)]),
 'conv_transpose3d': ([([1, 3, 3, 4, 4], 1.017455725, -3.609107514, 135.0766348)],
                      [([1, 2, 2, 3, 2], -0.7432301487, 0.3605236656, 8.57593271),
                       ([2, 3, 2, 2, 3], -8.008495222, 60.52303164, 344.5676248)]),
 'ctc_loss_mean': ([([], 1.257855188, 1.257855188, 1.257855188)],
                   [([6, 2, 4], -2.636779683e-16, 0.1390111664, 1.268754988)]),
 'ctc_loss_zero_infinity_none': ([([2], 5.143253431, 5.143253431, 5.143253431)],
                                 [([3, 2, 4], -1.33226763e-15, -1.235905479, 3.367716692)]),
 'dropout2d_seeded': ([([3, 4, 2, 2], -1.910370499, 7.572313464, 51.20942254)],
                      [([3, 4, 2, 2], -0.08020385725, 7.781659326, 25.8339467)]),
 'embedding_bag_max': ([([2, 3], 7.349012814, 1.261660141, 7.349012814)],
                       [([6, 3], -0.6172184842, -3.306167627, 3.860438421)]),
 'embedding_bag_mean_padding': ([([4, 3], 0.1408800516, -3.824293769, 9.564242835)],
                                [([6, 3], 1.593445132, -1.051629813, 6.135580458)]),
 'fold_unfold': ([([2, 3, 4, 5], 1.96957303, 1.124135942, 190.0178505),
                  ([2, 18, 9], 0.1348172667, -2.179404887, 122.6292646)],
                 [([2, 12, 9], 1.982422819, -0.5565446267, 91.34371067),
                  ([2, 3, 4, 6], 0.2374945564, -1.541576583, 73.77167422)]),
 'fractional_max_pool2d_given_samples': ([([1, 2, 4, 5], 58.1126274, -2.559648765, 59.18964728),
                                          ([1, 2, 4, 5], 1070.0, -149.398211, 1070.0)],
                                         [([1, 2, 7, 8], -0.4625873023, -6.02326217, 24.12591049)]),
 'gaussian_nll_clamped_var': ([([], 432.841376, 432.841376, 432.841376)],
                              [([2, 3], 283.7574222, -19.23762698, 891.6377155),
                               ([2, 1], -434876.3151, -391598.5979, 434876.3151)]),
 'grid_sample_3d_border_aligned': ([([1, 1, 2, 1, 3], 0.6491052183, -0.9815980422, 3.879815354)],
                                   [([1, 1, 3, 4, 2], -0.6172184842, -0.4986111173, 3.438846822),
                                    ([1, 2, 1, 3, 3], 8.032162567, 1.604996554, 8.032162567)]),
 'grid_sample_bicubic_reflection': ([([1, 2, 3, 2], 0.8624191627, -6.61057472, 12.80259525)],
                                    [([1, 2, 4, 5], -0.4181812256, -1.849601001, 8.00913087),
                                     ([1, 3, 2, 2], 14.23186761, -10.96576566, 42.41098749)]),
 'interpolate_area_3d_and_5d': ([([1, 2, 3], 0.8189352871, 0.01696910651, 2.573302164),
                                 ([1, 1, 2, 3, 2], -0.0003224578855, -0.01918730895, 0.4330822155)],
                                [([1, 2, 7], -0.6172184842, -0.2228388155, 3.708970358),
                                 ([1, 1, 3, 4, 5], -0.4181812256, -0.08626362728, 6.258191169)]),
 'linear_vector_input': ([([4], -0.7858992834, 3.044778942, 7.716293373)],
                         [([3], 0.6970866048, 0.6649234233, 1.181065798),
                          ([4, 3], 0.6619350879, 0.6300625448, 9.550601953),
                          ([4], 0.4903357316, 1.663147897, 2.752884205)]),
 'local_response_norm_4d': ([([1, 5, 2, 3], -0.1235921648, 0.2055524759, 24.71927686)],
                            [([1, 5, 2, 3], 1.123673277, 1.311771111, 12.51606757)]),
 'max_pool1d_indices_ceil': ([([2, 3, 4], 34.98188361, 1.249754161, 36.41480074),
                              ([2, 3, 4], 92.0, 4.038436536, 92.0)],
                             [([2, 3, 8], 1.356860143, 1.613434727, 14.46080581)]),
 'max_pool2d_dilation_indices': ([([1, 2, 3, 4], 32.32883355, 4.515115495, 37.51774047),
                                  ([1, 2, 3, 4], 476.0, 142.6210227, 476.0)],
                                 [([1, 2, 6, 7], 1.356860143, 1.37202919, 8.544365508)]),
 'max_pool3d_overlap': ([([1, 1, 3, 2, 4], 45.80778547, 3.97788066, 45.80778547),
                         ([1, 1, 3, 2, 4], 972.0, 97.76952329, 972.0)],
                        [([1, 1, 4, 4, 5], 1.356860143, -0.1079208139, 7.818851688)]),
 'max_unpool2d_duplicate_indices': ([([1, 1, 5, 5], 5.849420422, 1.51481665, 5.849420422)],
                                    [([1, 1, 3, 3], 1.298381336, -0.2663865977, 3.56842918)]),
 'multi_margin_p2_weight': ([([], 0.6191208107, 0.6191208107, 0.6191208107)],
                            [([3, 4], 0.0, -0.2010053253, 1.028107729)]),
 'multilabel_margin_duplicates': ([([2], 3.803904795, 3.745826781, 3.803904795)],
                                  [([2, 4], 0.0, 0.8289221041, 2.810804984)]),
 'normalize_p0_and_negative': ([([2, 3, 4], 0.5600681946, 0.2048670827, 7.640772309),
                                ([2, 3, 4], -1503.757573, 627.7873719, 1614.113395)],
                               [([2, 3, 4], 268421.6789, 176031.32, 269510.4647)]),
 'pad_circular_negative': ([([1, 1, 3, 5], -1.066420488, 1.912285979, 21.00690712)],
                           [([1, 1, 3, 4], 1.034519792, 1.462438677, 2.542605955)]),
 'pad_constant_negative': ([([2, 2, 6], 9.337386834, -0.3451655788, 19.71723924)],
                           [([2, 3, 5], 2.599221787, 2.379386016, 5.204673218)]),
 'pad_reflect_negative': ([([1, 2, 4], 0.6942865939, -3.691388084, 10.42866419)],
                          [([1, 2, 5], 1.017333028, -1.603200997, 3.771199992)]),
 'pad_replicate_negative': ([([1, 2, 4, 3], 11.32752657, 2.071338706, 34.17262566)],
                            [([1, 2, 4, 4], 1.356860143, -3.161378034, 7.476757955)]),
 'prelu_per_channel': ([([2, 3, 4], 14.80025474, 2.721712628, 19.69142233)],
                       [([2, 3, 4], 0.9007358061, 1.735141691, 9.196924442),
                        ([3], -0.2490131543, -0.2353379673, 1.256006424)])}

ERRORS_EXPECTED = {'channel_shuffle_groups': ('RuntimeError',
                            'Number of channels must be divisible by groups. Got 3 channels and 2 '
                            'groups.'),
 'conv_transpose3d_channels': ('RuntimeError',
                               'Given transposed=1, weight of size [2, 2, 1, 1, 1], expected '
                               'input[1, 3, 2, 2, 2] to have 2 channels, but got 3 channels '
                               'instead'),
 'cosine_embedding_target': ('RuntimeError',
                             '0D or 1D target tensor expected, multi-target not supported'),
 'embedding_bag_offsets_2d': ('ValueError',
                              'if input is 2D, then offsets has to be None, as input is treated is '
                              'a mini-batch of fixed length sequences. However, found offsets of '
                              "type <class 'torch.Tensor'>"),
 'fold_blocks': ('RuntimeError',
                 'Given output_size=(3, 3), kernel_size=(2, 2), dilation=(1, 1), padding=(0, 0), '
                 "stride=(1, 1), expected size of input's dimension 2 to match the calculated "
                 'number of sliding blocks 2 * 2 = 4, but got input.size(2)=5.'),
 'grid_sample_mode': ('ValueError',
                      "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
                      "'bicubic', but got: 'cubic'"),
 'max_pool3d_big_pad': ('RuntimeError',
                        'pad should be at most half of effective kernel size, but got pad=2, '
                        'kernel_size=3 and dilation=1'),
 'multi_margin_p3': ('ValueError', 'only p == 1 and p == 2 supported'),
 'pdist_3d': ('RuntimeError', 'pdist only supports 2D tensors, got: 3D'),
 'softshrink_negative': ('RuntimeError',
                         'lambda must be in range [0, 1.79769e+308] for input dtype Double, but '
                         'found -0.5'),
 'triplet_dims': ('RuntimeError',
                  'The anchor, positive, and negative tensors are expected to have the same number '
                  'of dimensions, but got: anchor 2D, positive 2D, and negative 1D inputs'),
 'unfold_5d': ('RuntimeError',
               'Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other '
               'non-zero dimensions for input, but got: [1, 2, 3, 4, 5]'),
 'unpool_bad_index': ('RuntimeError',
                      'Found an invalid max index: 100 (output volumes are of size 4x4)')}


def x(*shape, s=1.0):
    """Deterministic values (the same formula made PyTorch's records)."""
    n = int(np.prod(shape))
    return torch.tensor((np.sin(np.arange(n) * 1.7 + 0.3) * 2.0 * s).reshape(shape),
                        dtype=torch.float64, requires_grad=True)


def digest(a):
    a = np.asarray(a, np.float64)
    w = np.cos(np.arange(a.size) * 0.61).reshape(a.shape)
    return list(a.shape), a.sum(), (a * w).sum(), np.abs(a).sum()


def _check(have, want, what):
    shape, *sums = digest(have)
    assert shape == want[0], what
    np.testing.assert_allclose(sums, want[1:], rtol=1e-6, atol=1e-7, err_msg=what)


@pytest.mark.parametrize("name,code", CASES, ids=[c[0] for c in CASES])
def test_value_and_gradient_are_torchs(name, code):
    env = {"torch": torch, "F": F, "x": x, "np": np}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(code, env)
    outs = list(env["out"]) if isinstance(env["out"], tuple) else [env["out"]]
    want_outs, want_grads = EXPECTED[name]
    for k, (o, w) in enumerate(zip(outs, want_outs)):
        _check(o.detach().numpy(), w, f"{name} output {k}")
    diff = [o for o in outs if o.is_floating_point() and o.requires_grad]
    loss = None
    for o in diff:
        term = (o * torch.tensor(np.cos(np.arange(o.numel()) * 0.9).reshape(o.shape))).sum()
        loss = term if loss is None else loss + term
    for leaf in env["leaves"]:
        leaf.grad = None
    loss.backward()
    for k, (leaf, w) in enumerate(zip(env["leaves"], want_grads)):
        g = np.zeros(leaf.shape) if leaf.grad is None else leaf.grad.numpy()
        if w is None:
            assert not g.any(), f"{name} gradient {k}"
        else:
            _check(g, w, f"{name} gradient {k}")


@pytest.mark.parametrize("name,code", ERRORS, ids=[c[0] for c in ERRORS])
def test_refusals_are_torchs(name, code):
    kind, message = ERRORS_EXPECTED[name]
    with pytest.raises(Exception) as info:
        exec(code, {"torch": torch, "F": F, "x": x})
    assert type(info.value).__name__ == kind
    if name == "embedding_bag_offsets_2d":   # PyTorch names its own Tensor class there
        message = message[:message.index("<class")]
    assert str(info.value).split("\n")[0].startswith(message)


def test_modules_print_and_run_as_torchs():
    """Reprs as PyTorch 2.13 prints them; each module runs its functional form."""
    assert repr(nn.MaxPool3d(2)) == \
        "MaxPool3d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"
    assert repr(nn.Fold((4, 5), 2)) == \
        "Fold(output_size=(4, 5), kernel_size=2, dilation=1, padding=0, stride=1)"
    assert repr(nn.EmbeddingBag(5, 3, mode="sum", padding_idx=1, max_norm=2.0)) == \
        "EmbeddingBag(5, 3, max_norm=2.0, mode='sum', padding_idx=1)"
    assert repr(nn.ConvTranspose1d(2, 4, 3, stride=2)) == \
        "ConvTranspose1d(2, 4, kernel_size=(3,), stride=(2,))"
    assert repr(nn.LocalResponseNorm(3)) == "LocalResponseNorm(3, alpha=0.0001, beta=0.75, k=1.0)"
    assert repr(nn.PReLU()) == "PReLU(num_parameters=1)"
    assert repr(nn.Bilinear(2, 3, 4)) == "Bilinear(in1_features=2, in2_features=3, out_features=4, bias=True)"
    assert tuple(nn.Conv3d(2, 4, 3)(torch.randn(1, 2, 4, 4, 4)).shape) == (1, 4, 2, 2, 2)
    assert tuple(nn.ConvTranspose3d(2, 4, 3, stride=2)(torch.randn(1, 2, 3, 3, 3)).shape) == (1, 4, 7, 7, 7)
    drop = nn.Dropout3d()
    drop.eval()
    ones = torch.ones(1, 2, 1, 1, 1)
    assert drop(ones) is ones
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        nn.MultiMarginLoss(p=3)


def test_legacy_size_average_on_the_new_losses():
    """``size_average=False`` means a sum, with PyTorch's deprecation warning."""
    a, t = x(3, 4), torch.ones(3, 4)
    with pytest.warns(UserWarning, match="reduction='sum' instead"):
        legacy = F.soft_margin_loss(a, t, size_average=False)
    assert np.isclose(legacy.item(), F.soft_margin_loss(a, t, reduction="sum").item())


def test_empty_inputs_as_torch():
    """PyTorch 2.13 answers these with empty tensors (softmax over a [5, 0, 0] tensor, and
    batch_norm of a 0-element input, whose running statistics are empty too)."""
    empty = torch.zeros(5, 0, 0, requires_grad=True)
    assert tuple(F.softmin(empty, -1).shape) == (5, 0, 0)
    assert tuple(F.softmax(empty, 1).shape) == (5, 0, 0)
    out = F.batch_norm(torch.zeros(0, requires_grad=True), torch.zeros(0), torch.zeros(0),
                       training=True)
    assert tuple(out.shape) == (0,) and type(out.grad_fn).__name__ == "CloneBackward0"


def test_max_unpool_sends_the_gradient_to_every_duplicate():
    """Overlapping pooling windows repeat an index; ATen's backward gathers, so each of the
    values sent to one place gets the gradient arriving there (not a share of it)."""
    v = torch.tensor([[[[5.0, 5.0]]]], requires_grad=True)
    out = F.max_unpool2d(v, torch.tensor([[[[1, 1]]]]), (1, 2), stride=1)
    (out * torch.tensor([[[[2.0, 3.0, 4.0]]]])).sum().backward()
    assert out.detach().numpy().tolist() == [[[[0.0, 5.0, 0.0]]]]
    assert v.grad.numpy().tolist() == [[[[3.0, 3.0]]]]
