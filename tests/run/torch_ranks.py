"""torch_ranks.py - one rank of `torchrun --nproc_per_node 2` for
`occcalc run --measure sample`'s GPU tests: both ranks on GPU 0, each
running a few matrix products and elementwise kernels of its own (no
collective: the two processes time-share the GPU)."""
import os
import torch

rank = int(os.environ.get('RANK', '0'))
torch.manual_seed(rank)
a = torch.randn(2048, 2048, device='cuda:0')
for _ in range(4):
    a = torch.relu(a @ a.T / 2048)
torch.cuda.synchronize()
print('rank %d: %.4f' % (rank, float(a.sum())))
