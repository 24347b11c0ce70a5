import torch
x = torch.randn(2048, 2048, device='cuda')
w = torch.randn(2048, 2048, device='cuda')
for _ in range(3):
    y = torch.relu(x @ w)
    z = torch.softmax(y, dim=1).sum()
    x = (x * 0.5 + y.mean()).contiguous()
torch.cuda.synchronize()
print('done', float(z))
