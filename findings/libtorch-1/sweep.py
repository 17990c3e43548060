#!/usr/bin/python3
"""libtorch-1's extent: does optimize_for_mobile break a ConvTranspose2d exactly when its
output_padding is not below its stride? Every legal output_padding of small problems (stride,
dilation, kernel height 1-3), the optimized module against eager PyTorch. Prints the configurations
where the prediction fails (none expected)."""
import itertools

import torch
from torch.utils.mobile_optimizer import optimize_for_mobile

torch.manual_seed(0)
holds, exceptions = 0, []
for stride, dilation, kernel in itertools.product([1, 2, 3], [1, 2, 3], [1, 2, 3]):
    for output_padding in range(max(stride, dilation)):
        conv = torch.nn.ConvTranspose2d(2, 2, (kernel, 1), stride=(stride, 1),
                                        dilation=(dilation, 1), output_padding=(output_padding, 0),
                                        bias=False).eval()
        x = torch.randn(1, 2, 4, 3)
        optimized = optimize_for_mobile(torch.jit.script(conv))
        try:
            works = torch.allclose(optimized(x), conv(x), atol=1e-5)
        except RuntimeError:
            works = False
        if works == (output_padding < stride):
            holds += 1
        else:
            exceptions.append((stride, dilation, kernel, output_padding, works))
print(f"fails exactly when output_padding >= stride: {holds} configurations; "
      f"exceptions: {exceptions}")
