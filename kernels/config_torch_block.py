# A bf16 transformer block, forward and backward: layer norms, attention, MLP.
import torch
torch.manual_seed(0)
dev = "cuda"
layer = torch.nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048,
                                         batch_first=True, norm_first=True).to(dev).to(torch.bfloat16)
x = torch.randn(8, 256, 512, device=dev, dtype=torch.bfloat16, requires_grad=True)
for _ in range(2):
    y = layer(x)
    y.float().pow(2).mean().backward()
ln = torch.nn.LayerNorm(1024).to(dev)
for n in (64, 1000, 4096):
    z = torch.randn(n, 1024, device=dev, requires_grad=True)
    ln(z).sum().backward()
torch.cuda.synchronize()
